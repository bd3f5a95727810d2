// nmt-serve: translation over HTTP/JSON, with a page that shows each translation's attention.
#include "HttpFront.h"
#include "TranslationServer.h"
#include "serve/JsonResponses.h"
#include "common/AppMain.h"
#include "common/SharedOptions.h"
#include "data/LanguagePair.h"
#include "util/InputError.h"
#include "kernels/InferenceLinear.h"
#include "util/CudaRuntime.h"
#include "util/StopSignal.h"
#include "util/Threads.h"

#include <fmt/core.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <map>
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
  std::vector<std::string> languages;  // [NAME=]SRC-TGT
  std::string apiKeysFile, adminKeyFile;
  AccessLimits access;
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
  table.addInvocation("languages", s.languages,
            "a model's language pair as SRC-TGT (de-en), or NAME=SRC-TGT when serving several; repeat for each; "
            "instead of the pair nmt-train recorded (the LibreTranslate and DeepL routes choose models by it)");
  table.add("api-keys", s.apiKeysFile,
            "a file of API keys, one a line, each optionally followed by a character quota: every translation "
            "route then needs one (Authorization: Bearer KEY or DeepL-Auth-Key KEY, or LibreTranslate's api_key)");
  table.add("requests-per-minute", s.access.requestsPerMinute,
            "translation requests a key (an address, without --api-keys) may make a minute, in bursts of as many "
            "(0: no limit)");
  table.add("max-characters", s.access.maxCharacters, "characters one translation request may hold (0: no limit)");
  table.add("admin-key-file", s.adminKeyFile,
            "a file holding the key POST /v1/reload needs (Authorization: Bearer KEY); without it, only SIGHUP reloads");
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

// Each --model's name, in order.
std::vector<std::string> modelNames(const ServeSettings& s) {
  std::vector<std::string> names;
  for (const auto& spec : s.modelSpecs) names.push_back(modelSpec(spec).first);
  return names;
}

// --languages by model name: NAME=SRC-TGT, or SRC-TGT alone when one model is served.
std::map<std::string, LanguagePair> languageOverrides(const ServeSettings& s) {
  const auto names = modelNames(s);
  std::map<std::string, LanguagePair> pairs;
  for (const auto& given : s.languages) {
    const auto eq = given.find('=');
    std::string name = eq == std::string::npos ? std::string() : given.substr(0, eq);
    const auto pair = parseLanguagePair("languages", eq == std::string::npos ? given : given.substr(eq + 1));
    if (name.empty()) {
      if (names.size() != 1)
        throw po::error("--languages " + given + ": say which model it is for (NAME=SRC-TGT) when serving several");
      name = names.front();
    }
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw po::error("--languages " + given + ": no model is named " + name);
    pairs[name] = pair;
  }
  return pairs;
}

// Each --model loaded, under distinct names, with the language pairs --languages gives.
std::vector<LoadedModel> loadModels(const ServeSettings& s, const Runtime& runtime) {
  const auto languages = languageOverrides(s);
  std::vector<LoadedModel> loaded;
  for (const auto& spec : s.modelSpecs) {
    auto [name, dir] = modelSpec(spec);
    for (const auto& m : loaded)
      if (m.name == name) throw po::error("two models are named " + name + ": use NAME=DIR to tell them apart");
    loaded.push_back({name, dir, app::loadModelFor(s.model, dir, runtime)});
    if (const auto it = languages.find(name); it != languages.end()) loaded.back().model.languages = it->second;
  }
  return loaded;
}

// The loaded models behind their batching queues, warmed up: what a start or a reload serves.
std::shared_ptr<ModelSet> servedSet(std::vector<LoadedModel> loaded, const ServeSettings& s) {
  std::vector<ServedModel> served;
  for (auto& m : loaded)
    served.push_back({m.name, std::make_unique<BatchingTranslator>(std::move(m.model), s.batching)});
  const auto now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  auto set = std::make_shared<ModelSet>(std::move(served), now);
  TranslationServer::warmUp(*set);
  return set;
}

// The decoder threads per model (settings.decoders, or one per CPU thread on a CPU), and OpenBLAS's
// threads shared among them: "threads ..., 1 reader and N decoder threads". The reader shares the
// cores: encoding a group costs little beside the steps (docs/performance.md, "Serving").
std::string configureDecoding(ServeSettings& s, const Runtime& runtime, int cpuThreads) {
  // On a CPU: a decoder thread per core that steps greedy requests' running batches, one BLAS thread
  // each, and a reader that encodes
  s.batching.decoders = static_cast<std::size_t>(s.decoders > 0 ? s.decoders : runtime.device.is_cuda() ? 1 : cpuThreads);
  return configureThreads(std::max(1, cpuThreads / static_cast<int>(s.batching.decoders))) +
         fmt::format(", 1 reader and {} decoder thread{}", s.batching.decoders, s.batching.decoders == 1 ? "" : "s");
}

// SIGHUP asks for a reload, taken by the main loop; a handler may only set a flag.
class ReloadSignal {
 public:
  static void install() {
    struct sigaction action {};
    action.sa_handler = [](int) { asked() = 1; };
    sigemptyset(&action.sa_mask);
    sigaction(SIGHUP, &action, nullptr);
  }
  static bool take() { return asked() != 0 && (asked() = 0, true); }

 private:
  static volatile std::sig_atomic_t& asked() {
    static volatile std::sig_atomic_t flag = 0;
    return flag;
  }
};

// The first line of --admin-key-file, trimmed; InputError when it is missing or short.
std::string readAdminKey(const std::string& path) {
  std::ifstream in(path);
  std::string key;
  if (!in || !std::getline(in, key)) throw InputError("--admin-key-file " + path + ": cannot be read");
  key.erase(0, key.find_first_not_of(" \t\r"));
  key.erase(key.find_last_not_of(" \t\r") + 1);
  if (key.size() < 16) throw InputError("--admin-key-file " + path + ": the key must be 16 characters or more");
  return key;
}

// Loads the model folders again and serves them from the next request on; a folder that fails to
// load leaves the models of before serving. Answers the POST /v1/reload requests that asked.
void reload(const ServeSettings& settings, const Runtime& runtime, TranslationServer& server, ServerMetrics& metrics,
            std::vector<std::shared_ptr<ModelSet>>& retiring, std::vector<Respond>& asked) {
  HttpResponse outcome;
  try {
    auto fresh = servedSet(loadModels(settings, runtime), settings);
    const std::string names = fresh->names();
    retiring.push_back(server.replaceModels(std::move(fresh)));
    metrics.reloaded(true);
    fmt::print(stderr, "nmt-serve: reloaded {}\n", names);
    outcome.body = fmt::format(R"({{"reloaded":"{}"}})", names);
  } catch (const std::exception& e) {
    metrics.reloaded(false);
    fmt::print(stderr, "nmt-serve: reload failed, still serving the models of before: {}\n", e.what());
    outcome.status = 500;
    outcome.body = errorResponse(std::string("reload failed, still serving the models of before: ") + e.what());
  }
  for (auto& respond : asked) respond(outcome);
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
    languageOverrides(settings);  // checked before the models load
    ReloadSignal::install();      // a SIGHUP while loading reloads once serving, rather than killing
    const auto keys = settings.apiKeysFile.empty() ? std::vector<ApiKey>{} : readApiKeys(settings.apiKeysFile);
    const std::string adminKey = settings.adminKeyFile.empty() ? std::string() : readAdminKey(settings.adminKeyFile);
    const int cpuThreads = settings.runtime.threads > 0 ? settings.runtime.threads : matrixThreads();
    const Runtime runtime = app::startProgram(settings.runtime, ModelUse::kTranslation);
    auto loaded = loadModels(settings, runtime);
    const std::string threadInfo = configureDecoding(settings, runtime, cpuThreads);

    auto initial = servedSet(std::move(loaded), settings);  // warmed up
    const std::string names = initial->names();
    AccessControl access(keys, settings.access);
    ServerMetrics metrics;
    std::unique_ptr<HttpFront> front;
    TranslationServer server(std::move(initial), {settings.limits, adminKey}, access, metrics,
                             [&front] { return front ? front->openConnections() : 0; });
    front = std::make_unique<HttpFront>(frontOptions(settings), [&server](HttpRequest request, Respond respond) {
      server.handle(std::move(request), std::move(respond));
    });
    const int bound = front->bind(settings.host, settings.port);
    StopSignal::install();  // from here a signal stops gracefully; a second one kills as usual
    front->start();
    fmt::print(stderr,
               "nmt-serve: device {}, precision {}; {}; up to {} connections{}\nnmt-serve: {}; translation's fp32 "
               "products: {}\n",
               runtime.device.str(), precisionName(runtime.precision), threadInfo, front->maxConnections(),
               keys.empty() ? std::string() : fmt::format("; {} API keys", keys.size()), runtime.kernelLine,
               describeFloatProducts());
    server.setReady(true);
    // The line a supervisor or test waits for: a request sent now is answered as fast as any later one
    fmt::print(stderr, "nmt-serve: serving {} on http://{}:{}/ (Ctrl-C or SIGTERM stops, SIGHUP reloads)\n", names,
               settings.host, bound);
    std::vector<std::shared_ptr<ModelSet>> retiring;  // replaced sets, until their last requests are answered
    while (!StopSignal::received()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      auto asked = server.takeReloadRequests();
      if (ReloadSignal::take() || !asked.empty()) reload(settings, runtime, server, metrics, retiring, asked);
      retiring.erase(std::remove_if(retiring.begin(), retiring.end(), [](const auto& set) { return set.use_count() == 1; }),
                     retiring.end());  // (the last holder: its threads finish here, not on a translator's)
    }
    server.setReady(false);
    for (auto& respond : server.closeReloads()) respond({503, "", "application/json", errorResponse("stopping: no reload"), {}});
    front->stop();
    const auto stopped = front->wait();
    fmt::print(stderr, "nmt-serve: {}: stopped after answering {} translation requests{}\n",
               StopSignal::name(StopSignal::received()), server.requestsAnswered(),
               stopped.cutWhileReading
                   ? fmt::format("; closed the connections still sending requests after {} s",
                                 settings.stopGrace.count())
                   : std::string());
    return 0;
  });
}
