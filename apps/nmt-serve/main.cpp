// nmt-serve: translation over HTTP/JSON, with a page that shows each translation's attention.
#include "HttpFront.h"
#include "TranslationServer.h"
#include "common/AppMain.h"
#include "common/SharedOptions.h"
#include "kernels/InferenceLinear.h"
#include "util/CudaRuntime.h"
#include "util/StopSignal.h"
#include "util/Threads.h"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace po = boost::program_options;
using namespace nmt;
using namespace nmt::serve;

namespace {

// "NAME=DIR", or "DIR" named after its last folder.
std::pair<std::string, std::string> modelSpec(const std::string& spec) {
  const auto eq = spec.find('=');
  if (eq != std::string::npos) {
    if (eq == 0 || eq + 1 == spec.size()) throw po::error("--model " + spec + ": expected NAME=DIR or DIR");
    return {spec.substr(0, eq), spec.substr(eq + 1)};
  }
  std::string dir = spec;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const auto slash = dir.find_last_of('/');
  return {slash == std::string::npos ? dir : dir.substr(slash + 1), spec};
}

// What an nmt-serve invocation asks for.
struct ServeSettings {
  std::vector<std::string> modelSpecs;
  std::string host = "127.0.0.1";
  int port = 8080, batchWaitMs = 5, decoders = 0;
  std::size_t connections = 16384;
  int readTimeout = 2, requestTimeout = 30;
  std::chrono::seconds stopGrace{3};  // a stop waits this long for requests still arriving
  RuntimeOptions runtime;
  RequestLimits limits;
  BatchingTranslatorOptions batching;
  app::ModelOptions model;
};

void declareServeOptions(OptionTable& table, ServeSettings& s) {
  table.addRequired("model,m", s.modelSpecs,
                    "a model directory written by nmt-train, as DIR or NAME=DIR; repeat to serve several "
                    "(the first is the default)");
  table.add("host", s.host, "address to listen on (127.0.0.1: this machine only; 0.0.0.0: every interface)");
  table.add("port", s.port, "TCP port (0: any free port, printed at start)");
  declareRuntimeOptions(table, s.runtime);
  table.add("decoders", s.decoders,
            "threads stepping running batches of greedy requests, per model, beside one that encodes; "
            "--threads are shared among them "
            "(0: one per CPU thread on a CPU, 1 on a GPU)");
  table.add("batch-wait-ms", s.batchWaitMs, "how long a sentence waits for others to share its batch (milliseconds)");
  table.add("max-batch-sentences", s.batching.maxBatchSentences, "sentences decoded together at most (1 to 1024)");
  table.add("max-request-bytes", s.limits.maxRequestBytes, "largest request body accepted (413 above)");
  table.add("max-sentences", s.limits.maxSentences, "most sentences in one request (413 above)");
  table.add("max-beam", s.limits.maxBeam, "largest beam a request may ask for (400 above; 1 to 100)");
  app::declareLengthOptions(table, s.batching.decoding);
  app::declareModelOptions(table, s.model);
  table.add("connections", s.connections,
            "connections open at once (more wait in the kernel's queue; each holds a file descriptor and a few KB)");
  table.add("read-timeout", s.readTimeout,
            "seconds a client may send nothing while its request is read, or between kept-alive requests, "
            "before it is closed");
  table.add("request-timeout", s.requestTimeout, "seconds a request may take to arrive whole");
}

void checkServeOptions(ServeSettings& s) {
  if (s.port < 0 || s.port > 65535) throw po::error("--port must be between 0 and 65535");
  if (s.batchWaitMs < 0) throw po::error("--batch-wait-ms must be 0 or more");
  if (s.batching.maxBatchSentences < 1 || s.batching.maxBatchSentences > kMaxBatchRows)
    throw po::error(fmt::format("--max-batch-sentences must be between 1 and {}", kMaxBatchRows));
  if (s.limits.maxSentences < 1) throw po::error("--max-sentences must be at least 1");
  if (s.limits.maxBeam < 1 || s.limits.maxBeam > kMaxBeam)
    throw po::error(fmt::format("--max-beam must be between 1 and {}", kMaxBeam));
  app::checkBeamOptions(s.batching.decoding);
  if (s.connections < 1) throw po::error("--connections must be at least 1");
  if (s.readTimeout < 1) throw po::error("--read-timeout must be at least 1");
  if (s.requestTimeout < 1) throw po::error("--request-timeout must be at least 1");
  if (s.decoders < 0) throw po::error("--decoders must be 0 (automatic) or positive");
  s.batching.batchWait = std::chrono::milliseconds(s.batchWaitMs);
}

struct LoadedModel {
  std::string name, dir;
  TranslationModel model;
};

// Each --model loaded, under distinct names.
std::vector<LoadedModel> loadModels(const ServeSettings& s, const Runtime& runtime) {
  std::vector<LoadedModel> loaded;
  for (const auto& spec : s.modelSpecs) {
    auto [name, dir] = modelSpec(spec);
    for (const auto& m : loaded)
      if (m.name == name) throw po::error("two models are named " + name + ": use NAME=DIR to tell them apart");
    loaded.push_back({name, dir, app::loadModelFor(s.model, dir, runtime)});
  }
  return loaded;
}

// The decoder threads per model (settings.decoders, or one per CPU thread on a CPU), and OpenBLAS's
// threads shared among them: "threads ..., 1 reader and N decoder threads". The reader shares the
// cores: encoding a group costs little beside the steps (docs/performance.md, "Serving").
std::string configureDecoding(ServeSettings& s, const Runtime& runtime, const std::vector<LoadedModel>& loaded,
                              int cpuThreads) {
  const bool anyRunningBatch = std::any_of(loaded.begin(), loaded.end(), [](const LoadedModel& m) {
    return BatchingTranslator::runsRunningBatches(m.model);  // greedy requests go to decoder threads
  });
  // On a CPU: a decoder thread per core that steps, one BLAS thread each, and a reader that encodes
  s.batching.decoders = static_cast<std::size_t>(s.decoders > 0 ? s.decoders : runtime.device.is_cuda() ? 1 : cpuThreads);
  const int decodingThreads = anyRunningBatch ? static_cast<int>(s.batching.decoders) : 1;
  return configureThreads(std::max(1, cpuThreads / decodingThreads)) +
         (anyRunningBatch ? fmt::format(", 1 reader and {} decoder thread{}", s.batching.decoders,
                                        s.batching.decoders == 1 ? "" : "s")
                          : std::string());
}

HttpFrontOptions frontOptions(const ServeSettings& s) {
  HttpFrontOptions front;
  front.maxBodyBytes = s.limits.maxRequestBytes;
  front.maxConnections = s.connections;
  front.idleTimeout = std::chrono::seconds(s.readTimeout);
  front.requestTimeout = std::chrono::seconds(s.requestTimeout);
  front.stopGrace = s.stopGrace;
  return front;
}

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain("nmt-serve", [&] {
    app::setVersionDetails(runtimeDescription());
    ServeSettings settings;
    OptionTable table("Options");
    declareServeOptions(table, settings);
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-serve", "nmt-serve --model DIR [--model NAME=DIR ...] [--host H] [--port P] [options]",
                               argc, argv, table.description(), {}, vm))
      return 0;
    checkServeOptions(settings);
    const int cpuThreads = settings.runtime.threads > 0 ? settings.runtime.threads : matrixThreads();
    const Runtime runtime = app::startProgram(settings.runtime);
    auto loaded = loadModels(settings, runtime);
    const std::string threadInfo = configureDecoding(settings, runtime, loaded, cpuThreads);

    std::vector<ServedModel> models;
    for (auto& m : loaded) {
      models.push_back({m.name, m.dir, std::make_unique<BatchingTranslator>(std::move(m.model), settings.batching)});
    }
    std::string names;
    for (const auto& m : models) names += (names.empty() ? "" : ", ") + m.name;

    TranslationServer server(std::move(models), settings.limits);
    HttpFront front(frontOptions(settings), [&server](HttpRequest request, Respond respond) {
      server.handle(std::move(request), std::move(respond));
    });
    const int bound = front.bind(settings.host, settings.port);
    StopSignal::install();  // from here a signal stops gracefully; a second one kills as usual
    front.start();          // GET /health answers from here, GET /ready once warmed up
    server.warmUp();
    fmt::print(stderr, "nmt-serve: device {}, precision {}; {}; up to {} connections\nnmt-serve: {}; translation's fp32 products: {}\n",
               runtime.device.str(), precisionName(runtime.precision), threadInfo, front.maxConnections(),
               runtime.kernelLine, describeFloatProducts());
    server.setReady(true);
    // The line a supervisor or test waits for: a request sent now is answered as fast as any later one
    fmt::print(stderr, "nmt-serve: serving {} on http://{}:{}/ (Ctrl-C or SIGTERM stops)\n", names, settings.host, bound);
    while (!StopSignal::received()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    server.setReady(false);
    front.stop();
    const auto stopped = front.wait();
    fmt::print(stderr, "nmt-serve: {}: stopped after answering {} translation requests{}\n",
               StopSignal::name(StopSignal::received()), server.requestsAnswered(),
               stopped.cutWhileReading
                   ? fmt::format("; closed the connections still sending requests after {} s",
                                 settings.stopGrace.count())
                   : std::string());
    return 0;
  });
}
