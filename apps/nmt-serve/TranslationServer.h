#pragma once

#include "serve/BatchingTranslator.h"
#include "serve/TranslateRequest.h"

#include <httplib.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace nmt::serve {

struct ServedModel {
  std::string name, directory;
  std::unique_ptr<BatchingTranslator> translator;
};

// The HTTP side of nmt-serve: GET / (the page), GET /health, GET /v1/models, POST /v1/translate.
// Every answer is JSON (the page aside); a refused request gets a 4xx with {"error": "..."}.
class TranslationServer {
 public:
  // `connections`: connections served at once (one thread each; more wait for a free one).
  TranslationServer(std::vector<ServedModel> models, RequestLimits limits, std::size_t connections);

  // Binds host:port (0: any free port) and returns the port; throws InputError when it cannot.
  int bind(const std::string& host, int port);
  // Serves until stop(); requests under way are answered before it returns.
  void listen();
  // Safe from any thread; stops accepting connections.
  void stop() { server_.stop(); }
  bool running() const { return server_.is_running(); }
  std::size_t requestsAnswered() const { return answered_; }

 private:
  void translate(const httplib::Request& request, httplib::Response& response);
  ServedModel& model(const std::string& name);

  std::vector<ServedModel> models_;
  RequestLimits limits_;
  httplib::Server server_;
  std::atomic<std::size_t> answered_{0};
  int listenSocket_ = -1;  // the listening socket, as httplib created it
};

}  // namespace nmt::serve
