// nmt-serve: translation over HTTP/JSON, with a page that shows each translation's attention.
#include "TranslationServer.h"
#include "common/AppMain.h"
#include "util/BlasKernels.h"
#include "util/CudaRuntime.h"
#include "util/Device.h"
#include "util/HeapReuse.h"
#include "util/StopSignal.h"
#include "util/Threads.h"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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

// Stops the server on SIGINT or SIGTERM (a second one kills as usual), from a thread that watches
// StopSignal's flag: a signal handler itself may not call into the server. Requests under way are
// answered before listen() returns.
class StopOnSignal {
 public:
  explicit StopOnSignal(TranslationServer& server) {
    StopSignal::install();
    thread_ = std::thread([this, &server] {
      while (!done_) {
        if (StopSignal::received()) server.stop();  // repeated: a stop() before listen() starts is lost
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  ~StopOnSignal() {
    done_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace

int main(int argc, char* argv[]) {
  return app::runMain("nmt-serve", [&] {
    app::setVersionDetails(runtimeDescription());
    std::vector<std::string> modelSpecs;
    std::string host, device, weights, precisionText;
    int port, threads, batchWaitMs, decoders;
    std::size_t connections;
    RequestLimits limits;
    BatchingTranslatorOptions batching;
    po::options_description desc("Options");
    desc.add_options()("model,m", po::value(&modelSpecs)->required()->composing(),
                       "a model directory written by nmt-train, as DIR or NAME=DIR; repeat to serve several "
                       "(the first is the default)")(
        "host", po::value(&host)->default_value("127.0.0.1"),
        "address to listen on (127.0.0.1: this machine only; 0.0.0.0: every interface)")(
        "port", po::value(&port)->default_value(8080), "TCP port (0: any free port, printed at start)")(
        "device", po::value(&device)->default_value("auto"), "auto, cpu, cuda or cuda:N")(
        "threads", po::value(&threads)->default_value(0),
        "CPU threads for matrix work, shared by the reader and decoder threads (0: OpenBLAS's default, all cores)")(
        "decoders", po::value(&decoders)->default_value(0),
        "threads stepping running batches of greedy requests to RNN-decoder models, per model, beside one that "
        "encodes (0: one per CPU thread but one on a CPU, 1 on a GPU)")(
        "precision", po::value(&precisionText)->default_value("fp32"), "fp32, or on CUDA bf16 or fp16 (autocast)")(
        "weights", po::value(&weights)->default_value("best.pt"), "which weights of each directory: best.pt or last.pt")(
        "batch-wait-ms", po::value(&batchWaitMs)->default_value(5),
        "how long a sentence waits for others to share its batch (milliseconds)")(
        "max-batch-sentences", po::value(&batching.maxBatchSentences)->default_value(32),
        "sentences decoded together at most")(
        "max-request-bytes", po::value(&limits.maxRequestBytes)->default_value(1 << 20),
        "largest request body accepted (413 above)")(
        "max-sentences", po::value(&limits.maxSentences)->default_value(64), "most sentences in one request (413 above)")(
        "max-beam", po::value(&limits.maxBeam)->default_value(10), "largest beam a request may ask for (400 above)")(
        "length-penalty", po::value(&batching.lengthPenalty)->default_value(1.0, "1.0"),
        "beam search: rank by log-probability / ((5 + length) / 6)^alpha")(
        "max-ratio", po::value(&batching.limits.ratio)->default_value(2.0, "2.0"),
        "a translation has at most max-ratio x source pieces + 10")(
        "connections", po::value(&connections)->default_value(128),
        "connections served at once, one thread each (more wait for a free one)");
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-serve", "nmt-serve --model DIR [--model NAME=DIR ...] [--host H] [--port P] [options]",
                               argc, argv, desc, {}, vm))
      return 0;
    if (port < 0 || port > 65535) throw po::error("--port must be between 0 and 65535");
    if (batchWaitMs < 0) throw po::error("--batch-wait-ms must be 0 or more");
    if (batching.maxBatchSentences < 1) throw po::error("--max-batch-sentences must be at least 1");
    if (limits.maxSentences < 1) throw po::error("--max-sentences must be at least 1");
    if (limits.maxBeam < 1) throw po::error("--max-beam must be at least 1");
    if (connections < 1) throw po::error("--connections must be at least 1");
    if (decoders < 0) throw po::error("--decoders must be 0 (automatic) or positive");
    batching.batchWait = std::chrono::milliseconds(batchWaitMs);
    batching.precision = app::optionValue([&] { return parsePrecision(precisionText); });

    const auto dev = resolveDevice(device);
    checkPrecisionDevice(batching.precision, dev);
    reuseFreedMemory();
    struct LoadedModel {
      std::string name, dir;
      TranslationModel model;
    };
    std::vector<LoadedModel> loaded;
    bool anyRunningBatch = false;  // a model whose decoder takes newcomers: greedy requests go to decoder threads
    for (const auto& spec : modelSpecs) {
      auto [name, dir] = modelSpec(spec);
      for (const auto& m : loaded)
        if (m.name == name) throw po::error("two models are named " + name + ": use NAME=DIR to tell them apart");
      loaded.push_back({name, dir, loadTranslationModel(dir, dev, weights)});
      anyRunningBatch = anyRunningBatch || loaded.back().model.model->decoder().takesNewcomers();
    }
    // On a CPU: a reader thread that encodes and decoder threads that step, one BLAS thread each
    const int cpuThreads = threads > 0 ? threads : matrixThreads();
    batching.decoders = static_cast<std::size_t>(decoders > 0 ? decoders : dev.is_cuda() ? 1 : std::max(1, cpuThreads - 1));
    const int decodingThreads = anyRunningBatch ? static_cast<int>(batching.decoders) + 1 : 1;
    const std::string threadInfo =
        configureThreads(std::max(1, cpuThreads / decodingThreads)) +
        (anyRunningBatch ? fmt::format(", 1 reader and {} decoder thread{}", batching.decoders,
                                       batching.decoders == 1 ? "" : "s")
                         : std::string());

    std::vector<ServedModel> models;
    for (auto& m : loaded)
      models.push_back({m.name, m.dir, std::make_unique<BatchingTranslator>(std::move(m.model), dev, batching)});
    std::string names;
    for (const auto& m : models) names += (names.empty() ? "" : ", ") + m.name;

    TranslationServer server(std::move(models), limits, connections);
    const int bound = server.bind(host, port);
    fmt::print(stderr, "nmt-serve: device {}, precision {}; {}\nnmt-serve: {}\n", dev.str(),
               precisionName(batching.precision), threadInfo, describeMatrixKernels(currentMatrixKernels()));
    fmt::print(stderr, "nmt-serve: serving {} on http://{}:{}/ (Ctrl-C or SIGTERM stops)\n", names, host, bound);
    {
      const StopOnSignal stopper(server);
      server.listen();
    }
    const int signal = StopSignal::received();
    fmt::print(stderr, "nmt-serve: {}stopped after answering {} translation requests\n",
               signal ? fmt::format("{}: ", StopSignal::name(signal)) : "", server.requestsAnswered());
    return 0;
  });
}
