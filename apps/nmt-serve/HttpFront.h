#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace nmt::serve {

// One request as the front read it: whole, within the limits.
struct HttpRequest {
  std::string method, target;  // the target as sent: path, then "?" and the query
  std::vector<std::pair<std::string, std::string>> headers;  // as sent, in order
  std::string body;            // de-chunked
  std::string remoteAddress;   // the client's IP address

  std::string path() const;   // the target before "?"
  std::string query() const;  // after "?" ("" when none)
  // The first header of that name, any case ("" when absent).
  std::string header(const std::string& name) const;
};

struct HttpResponse {
  int status = 200;
  std::string reason;  // the status line's words; "" for the standard ones (needed for others, as DeepL's 456)
  std::string contentType = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // beyond Content-Type and Content-Length
};

// Answers a request once, from any thread.
using Respond = std::function<void(HttpResponse)>;

struct HttpFrontOptions {
  std::size_t maxBodyBytes = 1 << 20;  // larger bodies: 413, however framed
  std::size_t maxConnections = 16384;  // open at once; more wait in the kernel's queue
  // A client may send nothing for this long while its request is read, or between kept-alive requests.
  std::chrono::seconds idleTimeout{2};
  std::chrono::seconds requestTimeout{30};  // a request must arrive whole within this
  std::chrono::seconds stopGrace{3};        // a stop waits this long for requests still arriving
  std::size_t requestsPerConnection = 1000;  // kept alive for this many, then closed
};

// What a stop left behind, for the last line of the log.
struct HttpFrontStop {
  std::size_t cutWhileReading = 0;  // connections still sending a request after stopGrace, closed
};

// The connections of nmt-serve: an event loop on one thread (Boost.Asio/Beast), no thread per
// connection, so that idle and trickling clients cost a socket and a few KB each, not a thread.
// Requests are read whole (Content-Length or chunked, within the limits) and handed to the handler,
// which answers through Respond whenever it is done; the loop goes on meanwhile. Requests that
// cannot be read get a JSON error ({"error": ...}: 400, 411, 413, 414, 431) and the connection is closed.
//
// A stop (stop(), from any thread) is graceful: every connection the kernel accepted before it,
// queued or open, has its request read and answered; then the listening socket is closed (new
// connections are refused), kept-alive connections with nothing sent are closed, every request under
// way is answered, and connections still sending after stopGrace are cut.
class HttpFront {
 public:
  using Handler = std::function<void(HttpRequest, Respond)>;

  HttpFront(HttpFrontOptions options, Handler handler);
  ~HttpFront();
  HttpFront(const HttpFront&) = delete;
  HttpFront& operator=(const HttpFront&) = delete;

  // Binds host:port (0: any free port) and returns the port; throws InputError when it cannot. Raises
  // the process's soft limit of open files to its hard limit, and maxConnections() below it.
  int bind(const std::string& host, int port);
  // Runs the event loop on its own thread: connections are accepted from now on.
  void start();
  // Begins a graceful stop; safe from any thread, more than once.
  void stop();
  // Waits until a stop has finished (every connection closed) and the loop's thread ended.
  HttpFrontStop wait();

  std::size_t openConnections() const;
  std::size_t maxConnections() const;

  class Loop;  // the event loop and its connections (HttpFront.cpp)

 private:
  std::unique_ptr<Loop> loop_;
};

}  // namespace nmt::serve
