#include "TranslationServer.h"

#include "serve/JsonResponses.h"
#include "util/InputError.h"
#include "util/Stopwatch.h"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>

// The page, embedded at build time from page/index.html (cmake/EmbedFile.cmake).
extern const unsigned char nmt_serve_index_html[];
extern const unsigned long nmt_serve_index_html_size;

namespace nmt::serve {
namespace {

constexpr const char* kJson = "application/json";

void answerError(httplib::Response& response, int status, const std::string& message) {
  response.status = status;
  response.set_content(errorResponse(message), kJson);
}

}  // namespace

TranslationServer::TranslationServer(std::vector<ServedModel> models, RequestLimits limits, std::size_t connections,
                                     int readTimeoutSeconds)
    : models_(std::move(models)), limits_(limits) {
  server_.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
  server_.set_read_timeout(readTimeoutSeconds, 0);
  server_.set_payload_max_length(limits_.maxRequestBytes);
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which lets a second server share the port unnoticed
  server_.set_socket_options([this](socket_t sock) {
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listenSocket_ = sock;
  });
  server_.set_tcp_nodelay(true);  // small answers on kept-alive connections go out at once
  server_.set_keep_alive_timeout(2);  // a stop waits at most this long for an idle kept-alive connection

  server_.Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(reinterpret_cast<const char*>(nmt_serve_index_html), nmt_serve_index_html_size,
                         "text/html; charset=utf-8");
  });
  server_.Get("/health", [this](const httplib::Request&, httplib::Response& response) {
    ServeCounters total;
    for (const auto& m : models_) {
      const auto c = m.translator->counters();
      total.requests += c.requests;
      total.sentences += c.sentences;
      total.batches += c.batches;
      total.largestBatch = std::max(total.largestBatch, c.largestBatch);
    }
    response.set_content(healthResponse(total), kJson);
  });
  server_.Get("/v1/models", [this](const httplib::Request&, httplib::Response& response) {
    std::vector<ModelInfo> info;
    for (const auto& m : models_) {
      const auto& config = m.translator->model().model->config();
      info.push_back({m.name, m.directory, config.encoder, config.decoder, config.cell, m.translator->model().maxInputLength,
                      m.translator->shortlist(), m.translator->model().int8});
    }
    response.set_content(modelsResponse(info), kJson);
  });
  // The body is read here, not by httplib, so that the byte limit holds for chunked bodies too.
  server_.Post("/v1/translate", [this](const httplib::Request& request, httplib::Response& response,
                                       const httplib::ContentReader& content) {
    std::string body;
    if (readBody(request, content, body, response)) translate(body, response);
  });
  // Statuses set by httplib itself (404, 413, ...) get a JSON body too; ours already have one.
  server_.set_error_handler([this](const httplib::Request& request, httplib::Response& response) {
    if (!response.body.empty()) return;
    if (response.status == 413)
      answerError(response, 413, fmt::format("the request body is over this server's limit of {} bytes",
                                             limits_.maxRequestBytes));
    else if (response.status == 404)
      answerError(response, 404, fmt::format("no such endpoint: {} {}", request.method, request.path));
    else if (response.status == 400 && (request.method.empty() || request.version.empty()))
      answerError(response, 400, "the request line could not be read (expected METHOD PATH HTTP/1.1, under 8 KB)");
    else if (response.status == 400)
      answerError(response, 400, "the request headers could not be read (a malformed header line, or headers over 8 KB)");
    else if (response.status == 414)  // newer httplibs (Debian 13's) say these themselves
      answerError(response, 414, "the request line is over 8 KB");
    else if (response.status == 431)
      answerError(response, 431, "the request headers are over 8 KB");
    else
      answerError(response, response.status, fmt::format("HTTP status {}", response.status));
  });
  server_.set_exception_handler([](const httplib::Request&, httplib::Response& response, std::exception_ptr error) {
    std::string message = "internal error";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
    }
    answerError(response, 500, message);
  });
}

ServedModel& TranslationServer::model(const std::string& name) {
  if (name.empty()) return models_.front();
  for (auto& m : models_)
    if (m.name == name) return m;
  std::string names;
  for (const auto& m : models_) names += (names.empty() ? "" : ", ") + m.name;
  throw RequestError(404, fmt::format("unknown model \"{}\" (this server has: {})", name, names));
}

bool TranslationServer::readBody(const httplib::Request& request, const httplib::ContentReader& content,
                                 std::string& body, httplib::Response& response) const {
  // Without either header the body would end only when the client closes: refused at once
  const bool chunked = request.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos;
  if (!chunked && !request.has_header("Content-Length")) {
    answerError(response, 411, "POST /v1/translate needs a Content-Length header (or a chunked body)");
    response.set_header("Connection", "close");
    return false;
  }
  const auto overLimit = [&] {
    answerError(response, 413,
                fmt::format("the request body is over this server's limit of {} bytes", limits_.maxRequestBytes));
    response.set_header("Connection", "close");  // the rest of the body is not read
    return false;
  };
  bool tooLarge = false;
  const bool whole = content([&](const char* data, std::size_t length) {
    if (body.size() + length > limits_.maxRequestBytes) return !(tooLarge = true);
    body.append(data, length);
    return true;
  });
  if (tooLarge || response.status == 413) return overLimit();  // 413: httplib's Content-Length check
  if (!whole) {
    answerError(response, 400, chunked ? "the chunked request body is malformed or ended early"
                                       : "the request body ended before its Content-Length");
    response.set_header("Connection", "close");
    return false;
  }
  return true;
}

void TranslationServer::translate(const std::string& body, httplib::Response& response) {
  const Stopwatch clock;
  ++inFlight_;
  struct Done {
    std::atomic<std::size_t>& count;
    ~Done() { --count; }
  } done{inFlight_};
  try {
    const auto parsed = parseTranslateRequest(body, limits_);
    auto& served = model(parsed.model);
    auto future = served.translator->submit(parsed.texts, parsed.decoding, parsed.guidance);
    const auto translations = future.get();
    response.set_content(translateResponse(translations, parsed.decoding.keepAttention,
                                           static_cast<std::size_t>(parsed.decoding.nbest), served.name,
                                           clock.seconds() * 1000.0, parsed.guidance.alternatives > 0),
                         kJson);
    ++answered_;
  } catch (const RequestError& e) {
    answerError(response, e.status(), e.what());
  }
}

int TranslationServer::bind(const std::string& host, int port) {
  errno = 0;
  const int bound = port == 0 ? server_.bind_to_any_port(host) : (server_.bind_to_port(host, port) ? port : -1);
  if (bound <= 0)
    throw InputError(fmt::format("cannot listen on {}:{}: {}", host, port,
                                 errno ? std::strerror(errno) : "the address is not usable"));
  // httplib listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, fixed when Debian built it): 64 clients
  // connecting at once overflowed it and waited a second for a SYN retry. listen() again sets a deeper queue.
  if (listenSocket_ >= 0) ::listen(listenSocket_, SOMAXCONN);
  return bound;
}

void TranslationServer::listen() { server_.listen_after_bind(); }

}  // namespace nmt::serve
