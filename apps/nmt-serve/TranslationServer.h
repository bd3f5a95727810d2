#pragma once

#include "AccessControl.h"
#include "HttpFront.h"
#include "ModelSet.h"
#include "ServerMetrics.h"
#include "serve/TextTranslation.h"
#include "serve/TranslateRequest.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace nmt::serve {

// The routes of nmt-serve (HttpFront's handler):
//   GET / (the page), GET /health (200 while the process runs), GET /ready (200 once ready and until a
//   stop, else 503), GET /metrics (Prometheus), GET /v1/models, POST /v1/translate (the own API),
//   POST /v1/reload (with the admin key), LibreTranslate's POST /translate and GET /languages, DeepL's
//   POST /v2/translate, GET /v2/languages and GET /v2/usage.
// Translation routes pass AccessControl (keys, rate, characters, quotas) before anything is decoded.
// No decoding code learns which API asked: each API maps to a TranslateRequest or a TextTranslationRequest.
class TranslationServer {
 public:
  // The API a route speaks: its error shape and its statuses for refusals.
  enum class Api { kOwn, kLibre, kDeepL };

  struct Settings {
    RequestLimits limits;
    std::string adminKey;  // POST /v1/reload's key; empty: reloading over HTTP is refused
  };
  TranslationServer(std::shared_ptr<ModelSet> models, Settings settings, AccessControl& access,
                    ServerMetrics& metrics, std::function<std::size_t()> openConnections);

  void handle(HttpRequest request, Respond respond);

  // Translates a sentence with each model, outside the counters: the first request then costs what any
  // later one does (kernels created, buffers grown, threads woken).
  static void warmUp(ModelSet& models);
  // What GET /ready says: true once warmed up, false again when a stop begins.
  void setReady(bool ready) { ready_ = ready; }

  // Serves `models` from the next request on; returns the set it replaces, still held by the requests
  // under way (destroy it once it is the only holder: its threads finish there).
  std::shared_ptr<ModelSet> replaceModels(std::shared_ptr<ModelSet> models);
  // POST /v1/reload requests waiting for the reload (answered by whoever reloads).
  std::vector<Respond> takeReloadRequests();
  // At a stop: later POST /v1/reload requests are answered 503 at once; returns those still waiting,
  // for the caller to answer before the connections can close.
  std::vector<Respond> closeReloads();

  std::size_t requestsAnswered() const { return answered_; }

 private:
  std::shared_ptr<ModelSet> models() const;
  // Answers with the status recorded in the metrics under `route`.
  Respond recorded(const std::string& route, Respond respond) const;
  void translate(const HttpRequest& request, Respond respond);
  void libreTranslate(const HttpRequest& request, Respond respond);
  void deeplTranslate(const HttpRequest& request, Respond respond);
  // LibreTranslate's and DeepL's requests from their parsed body on: the key, the model by languages, the
  // limits, the decoding, the answer in the API's shape. RequestError before anything is decoded.
  void translateTexts(Api api, const HttpRequest& request, TextTranslationRequest parsed,
                      std::function<std::string(const TextTranslationResult&)> shape, const Respond& respond);
  void deeplUsage(const HttpRequest& request, Respond respond);
  void reload(const HttpRequest& request, Respond respond);
  std::string metricsText() const;

  std::shared_ptr<ModelSet> models_;  // atomic_load / atomic_store
  Settings settings_;
  AccessControl& access_;
  ServerMetrics& metrics_;
  std::function<std::size_t()> openConnections_;
  std::atomic<bool> ready_{false};
  std::atomic<std::size_t> answered_{0};
  std::mutex reloadMutex_;
  std::vector<Respond> reloadRequests_;
  bool reloadsClosed_ = false;
};

}  // namespace nmt::serve
