#pragma once

#include "HttpFront.h"
#include "serve/BatchingTranslator.h"
#include "serve/TranslateRequest.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace nmt::serve {

struct ServedModel {
  std::string name, directory;
  std::unique_ptr<BatchingTranslator> translator;
};

// The routes of nmt-serve: GET / (the page), GET /health (200 while the process runs), GET /ready
// (200 once ready() and until a stop, else 503), GET /v1/models, POST /v1/translate. Every answer is
// JSON (the page aside); a refused request gets a 4xx with {"error": "..."}. Connections are HttpFront's.
class TranslationServer {
 public:
  TranslationServer(std::vector<ServedModel> models, RequestLimits limits);

  // HttpFront's handler: answers at once, or (translations) when the batching translator is done.
  void handle(HttpRequest request, Respond respond);

  // Translates a sentence with each model and search the server runs, outside the counters: the
  // first request then costs what any later one does (kernels created, buffers grown, threads woken).
  void warmUp();
  // What GET /ready says: true once warmed up, false again when a stop begins.
  void setReady(bool ready) { ready_ = ready; }

  std::size_t requestsAnswered() const { return answered_; }
  // Translation requests read whole and not yet answered.
  std::size_t requestsInFlight() const { return inFlight_; }

 private:
  void translate(const std::string& body, Respond respond);
  ServedModel& model(const std::string& name);

  std::vector<ServedModel> models_;
  RequestLimits limits_;
  std::atomic<bool> ready_{false};
  std::atomic<std::size_t> answered_{0}, inFlight_{0};
};

}  // namespace nmt::serve
