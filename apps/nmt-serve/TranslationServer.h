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
  // `readTimeoutSeconds`: how long a connection may send nothing while its request is read.
  TranslationServer(std::vector<ServedModel> models, RequestLimits limits, std::size_t connections,
                    int readTimeoutSeconds);

  // Binds host:port (0: any free port) and returns the port; throws InputError when it cannot.
  int bind(const std::string& host, int port);
  // Serves until stop(); requests under way are answered before it returns.
  void listen();
  // Safe from any thread; stops accepting connections.
  void stop() { server_.stop(); }
  bool running() const { return server_.is_running(); }
  std::size_t requestsAnswered() const { return answered_; }
  // Translation requests read whole and not yet answered (a stop waits for these, not for
  // connections still sending their requests).
  std::size_t requestsInFlight() const { return inFlight_; }

 private:
  // The body as sent, Content-Length or chunked, within the byte limit; false with the refusal
  // (411, 413, 400) in `response`.
  bool readBody(const httplib::Request& request, const httplib::ContentReader& content, std::string& body,
                httplib::Response& response) const;
  void translate(const std::string& body, httplib::Response& response);
  ServedModel& model(const std::string& name);

  std::vector<ServedModel> models_;
  RequestLimits limits_;
  httplib::Server server_;
  std::atomic<std::size_t> answered_{0}, inFlight_{0};
  int listenSocket_ = -1;  // the listening socket, as httplib created it
};

}  // namespace nmt::serve
