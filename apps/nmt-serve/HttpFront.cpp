#include "HttpFront.h"

#include "serve/JsonResponses.h"
#include "util/InputError.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <strings.h>
#include <sys/resource.h>
#include <thread>
#include <unordered_map>

namespace nmt::serve {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using ErrorCode = boost::system::error_code;

namespace {

constexpr std::size_t kHeaderLimit = 8192;       // request line and headers together
constexpr std::size_t kReadBufferLimit = 65536;  // bytes read ahead of the parser, per connection
constexpr std::chrono::milliseconds kAcceptRetry{100};  // after running out of descriptors
constexpr std::size_t kSpareDescriptors = 64;           // beside the connections

bool headerIs(const std::string& value, const char* expected) { return strcasecmp(value.c_str(), expected) == 0; }

}  // namespace

std::string HttpRequest::path() const { return target.substr(0, target.find('?')); }

std::string HttpRequest::query() const {
  const auto mark = target.find('?');
  return mark == std::string::npos ? std::string() : target.substr(mark + 1);
}

std::string HttpRequest::header(const std::string& name) const {
  for (const auto& [key, value] : headers)
    if (headerIs(key, name.c_str())) return value;
  return {};
}

class Connection;

class HttpFront::Loop {
 public:
  Loop(HttpFrontOptions options, Handler handler)
      : options(options), handler(std::move(handler)), acceptor(io), acceptPause(io), grace(io) {}

  void accept();
  void adopt(tcp::socket socket);  // a new connection
  void beginStop();                // on the loop's thread
  void connectionClosed();         // from a Connection's destructor, any thread
  std::vector<std::shared_ptr<Connection>> live();
  void finishIfDone();

  HttpFrontOptions options;
  Handler handler;
  asio::io_context io{1};
  tcp::acceptor acceptor;
  asio::steady_timer acceptPause, grace;
  bool acceptPaused = false;
  std::thread thread;
  std::atomic<bool> stopping{false}, stopAsked{false};
  std::atomic<std::size_t> open{0};
  HttpFrontStop stopped;

  std::mutex registryMutex;  // connections may end on a translator's thread (the last Respond let go)
  std::unordered_map<std::uint64_t, std::weak_ptr<Connection>> registry;
  std::uint64_t nextId = 0;
};

// One client connection: reads requests one by one (kept alive), hands each to the handler, writes
// its answer. Lives as long as an operation or a Respond holds it.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  enum class State { kAwaitingFirst, kIdle, kReading, kHandling, kWriting, kClosing, kClosed };

  Connection(HttpFront::Loop& loop, tcp::socket socket, std::uint64_t id)
      : loop_(loop), id_(id), stream_(std::move(socket)), buffer_(kReadBufferLimit) {
    ErrorCode ignored;
    remoteAddress_ = stream_.socket().remote_endpoint(ignored).address().to_string();
    stream_.socket().set_option(tcp::no_delay(true), ignored);  // small answers go out at once
  }
  ~Connection() {
    {
      std::lock_guard<std::mutex> lock(loop_.registryMutex);
      loop_.registry.erase(id_);
    }
    loop_.connectionClosed();
  }

  void start() { beginRequest(); }
  State state() const { return state_; }

  // A stop began: a kept-alive connection with nothing of a next request sent is closed now.
  void onStop() {
    ErrorCode ec;
    if (state_ == State::kIdle && buffer_.size() == 0 && stream_.socket().available(ec) == 0) close();
  }
  void close() {
    if (state_ == State::kClosed) return;
    state_ = State::kClosed;
    stream_.close();  // a pending operation ends with operation_aborted
  }

 private:
  void beginRequest() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(loop_.options.maxBodyBytes);
    headerChecked_ = false;
    if (buffer_.size() > 0) startedReading();  // a pipelined request already here
    readSome();
  }

  void startedReading() {
    state_ = State::kReading;
    requestDeadline_ = std::chrono::steady_clock::now() + loop_.options.requestTimeout;
  }

  void readSome() {
    auto timeout = std::chrono::steady_clock::duration(loop_.options.idleTimeout);
    if (state_ == State::kReading)
      timeout = std::min(timeout, requestDeadline_ - std::chrono::steady_clock::now());
    stream_.expires_after(std::max(timeout, std::chrono::steady_clock::duration::zero()));
    http::async_read_some(stream_, buffer_, *parser_,
                          [self = shared_from_this()](ErrorCode ec, std::size_t) { self->onRead(ec); });
  }

  void onRead(ErrorCode ec) {
    if (state_ == State::kClosed) return;
    if ((state_ == State::kAwaitingFirst || state_ == State::kIdle) && (parser_->got_some() || buffer_.size() > 0))
      startedReading();
    if (ec) return readFailed(ec);
    if (parser_->is_header_done() && !headerChecked_ && !checkHeader()) return;
    if (parser_->is_done()) return handle();
    readSome();
  }

  // A request that could not be read: answered with its reason where there is one, then closed.
  void readFailed(ErrorCode ec) {
    if (ec == http::error::header_limit) {
      // the parser takes the request line as soon as it is whole: a target means it got that far
      return parser_->get().target().empty() ? refuse(414, "the request line is over 8 KB")
                                             : refuse(431, "the request headers are over 8 KB");
    }
    if (ec == http::error::body_limit)
      return refuse(413, fmt::format("the request body is over this server's limit of {} bytes",
                                     loop_.options.maxBodyBytes));
    if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      if (parser_->is_header_done())
        return refuse(400, parser_->chunked() ? "the chunked request body is malformed or ended early"
                                              : "the request body could not be read");
      if (ec == http::error::bad_method || ec == http::error::bad_target || ec == http::error::bad_version)
        return refuse(400, "the request line could not be read (expected METHOD PATH HTTP/1.1, under 8 KB)");
      return refuse(400, "the request headers could not be read (a malformed header line, or headers over 8 KB)");
    }
    close();  // the client left or went quiet (timeout): no one to answer
  }

  // What the headers alone decide; false when the request was refused.
  bool checkHeader() {
    headerChecked_ = true;
    const auto& request = parser_->get();
    const bool carriesBody = request.method() == http::verb::post || request.method() == http::verb::put ||
                             request.method() == http::verb::patch;
    // Without either header the body would end only when the client closes: refused at once
    if (carriesBody && !parser_->chunked() && !parser_->content_length()) {
      const std::string target(request.target());
      refuse(411, fmt::format("{} {} needs a Content-Length header (or a chunked body)",
                              std::string(request.method_string()), target.substr(0, target.find('?'))));
      return false;
    }
    if (!parser_->is_done() && headerIs(std::string(request[http::field::expect]), "100-continue")) {
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      stream_.expires_after(loop_.options.requestTimeout);
      asio::async_write(stream_, asio::buffer(kContinue), [self = shared_from_this()](ErrorCode ec, std::size_t) {
        if (ec || self->state_ == State::kClosed) return self->close();
        self->readSome();
      });
      return false;  // reading goes on once the interim answer is out
    }
    return true;
  }

  void handle() {
    state_ = State::kHandling;
    ++served_;
    auto message = parser_->release();
    keepAlive_ = message.keep_alive() && served_ < loop_.options.requestsPerConnection;
    HttpRequest request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    for (const auto& field : message) request.headers.emplace_back(field.name_string(), field.value());
    request.body = std::move(message.body());
    request.remoteAddress = remoteAddress_;
    // The connection is let go at the answer, not when the handler lets go of `respond`; a second call does nothing
    auto held = std::make_shared<std::shared_ptr<Connection>>(shared_from_this());
    Respond respond = [held](HttpResponse response) {
      auto self = std::atomic_exchange(held.get(), std::shared_ptr<Connection>());
      if (!self) return;
      auto& io = self->loop_.io;
      asio::post(io, [self = std::move(self), response = std::move(response)]() mutable {
        self->write(std::move(response));
      });
    };
    try {
      loop_.handler(std::move(request), std::move(respond));
    } catch (const std::exception& e) {
      write(errorAnswer(500, e.what()));
    }
  }

  static HttpResponse errorAnswer(int status, const std::string& message) {
    HttpResponse response;
    response.status = status;
    response.body = errorResponse(message);
    return response;
  }

  void refuse(int status, const std::string& message) {
    keepAlive_ = false;  // what is left of the request is not read
    write(errorAnswer(status, message));
  }

  void write(HttpResponse answer) {
    if (state_ == State::kClosed) return;
    state_ = State::kWriting;
    const bool keep = keepAlive_ && !loop_.stopping;
    response_.emplace(static_cast<http::status>(answer.status), 11);
    if (!answer.reason.empty())
      response_->reason(answer.reason);
    else if (http::int_to_status(static_cast<unsigned>(answer.status)) == http::status::unknown)
      response_->reason("Unknown");
    response_->set(http::field::server, "nmt-serve");
    response_->set(http::field::content_type, answer.contentType);
    for (auto& [name, value] : answer.headers) response_->set(name, value);
    response_->body() = std::move(answer.body);
    response_->keep_alive(keep);
    response_->prepare_payload();
    stream_.expires_after(loop_.options.requestTimeout);
    http::async_write(stream_, *response_, [self = shared_from_this(), keep](ErrorCode ec, std::size_t) {
      self->response_.reset();
      if (ec || self->state_ == State::kClosed) return self->close();
      if (!keep) return self->lingerClose();
      self->state_ = State::kIdle;
      self->beginRequest();
    });
  }

  // Closes after the answer: sends no more, then reads and drops what the client still sends (the
  // rest of a refused body) until it closes or idleTimeout passes; closing with unread data would
  // reset the connection, and the client could lose the answer.
  void lingerClose() {
    state_ = State::kClosing;
    ErrorCode ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(loop_.options.idleTimeout);
    drain();
  }
  void drain() {
    stream_.async_read_some(asio::buffer(scratch_), [self = shared_from_this()](ErrorCode ec, std::size_t) {
      if (ec || self->state_ == State::kClosed) return self->close();
      self->drain();
    });
  }

  HttpFront::Loop& loop_;
  std::uint64_t id_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> response_;
  std::array<char, 4096> scratch_{};
  std::string remoteAddress_;
  State state_ = State::kAwaitingFirst;
  std::chrono::steady_clock::time_point requestDeadline_{};
  std::size_t served_ = 0;
  bool headerChecked_ = false, keepAlive_ = false;
};

void HttpFront::Loop::accept() {
  acceptor.async_accept([this](ErrorCode ec, tcp::socket socket) {
    if (!acceptor.is_open() || ec == asio::error::operation_aborted) return;
    if (ec) {  // out of descriptors, most likely: try again shortly (the kernel keeps the queue)
      acceptPause.expires_after(kAcceptRetry);
      acceptPause.async_wait([this](ErrorCode e) {
        if (!e && acceptor.is_open()) accept();
      });
      return;
    }
    adopt(std::move(socket));
    if (open >= options.maxConnections)
      acceptPaused = true;  // resumed when one closes
    else
      accept();
  });
}

void HttpFront::Loop::adopt(tcp::socket socket) {
  std::shared_ptr<Connection> connection;
  {
    std::lock_guard<std::mutex> lock(registryMutex);
    connection = std::make_shared<Connection>(*this, std::move(socket), nextId);
    registry.emplace(nextId++, connection);
  }
  ++open;
  connection->start();
}

void HttpFront::Loop::connectionClosed() {
  --open;
  asio::post(io, [this] {
    if (acceptPaused && !stopping && acceptor.is_open()) {
      acceptPaused = false;
      accept();
    }
    finishIfDone();
  });
}

std::vector<std::shared_ptr<Connection>> HttpFront::Loop::live() {
  std::vector<std::shared_ptr<Connection>> all;
  std::lock_guard<std::mutex> lock(registryMutex);
  for (const auto& [id, weak] : registry)
    if (auto c = weak.lock()) all.push_back(std::move(c));
  return all;
}

void HttpFront::Loop::beginStop() {
  if (stopping) return;
  stopping = true;
  // Connections the kernel accepted before the stop are ours to answer: take them off its queue first
  ErrorCode ec;
  if (acceptor.is_open()) {
    acceptor.non_blocking(true, ec);
    while (!ec) {
      tcp::socket socket(io);
      acceptor.accept(socket, ec);
      if (!ec) adopt(std::move(socket));
    }
    acceptor.close(ec);  // new connections are refused from here on
  }
  acceptPause.cancel();
  for (auto& c : live()) c->onStop();
  grace.expires_after(options.stopGrace);
  grace.async_wait([this](ErrorCode e) {
    if (e) return;
    for (auto& c : live()) {
      const auto state = c->state();
      if (state == Connection::State::kAwaitingFirst || state == Connection::State::kIdle ||
          state == Connection::State::kReading) {
        ++stopped.cutWhileReading;
        c->close();
      } else if (state == Connection::State::kClosing) {
        c->close();
      }
    }
  });
  finishIfDone();
}

void HttpFront::Loop::finishIfDone() {
  if (stopping && open == 0) {
    grace.cancel();
    io.stop();
  }
}

HttpFront::HttpFront(HttpFrontOptions options, Handler handler)
    : loop_(std::make_unique<Loop>(options, std::move(handler))) {}

HttpFront::~HttpFront() {
  if (loop_->thread.joinable()) {
    stop();
    wait();
  }
}

int HttpFront::bind(const std::string& host, int port) {
  // Each connection holds a descriptor: the soft limit (often 1024) raised to the hard one, and the
  // connections kept below it with room for the model's files and the log
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
    if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < loop_->options.maxConnections + kSpareDescriptors)
      loop_->options.maxConnections = limit.rlim_cur > 2 * kSpareDescriptors ? limit.rlim_cur - kSpareDescriptors : kSpareDescriptors;
  }
  auto& acceptor = loop_->acceptor;
  const auto fail = [&](const ErrorCode& ec) {
    return InputError(fmt::format("cannot listen on {}:{}: {}", host, port, ec.message()));
  };
  ErrorCode ec;
  tcp::resolver resolver(loop_->io);
  const auto endpoints = resolver.resolve(host, std::to_string(port), tcp::resolver::passive, ec);
  if (ec || endpoints.empty()) throw fail(ec ? ec : asio::error::host_not_found);
  const tcp::endpoint endpoint = *endpoints.begin();
  acceptor.open(endpoint.protocol(), ec);
  // SO_REUSEADDR only (a restart binds at once); SO_REUSEPORT would let a second server share the port unnoticed
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    ErrorCode ignored;
    acceptor.close(ignored);
    throw fail(ec);
  }
  return acceptor.local_endpoint().port();
}

void HttpFront::start() {
  asio::post(loop_->io, [loop = loop_.get()] { loop->accept(); });
  loop_->thread = std::thread([loop = loop_.get()] {
    const auto work = asio::make_work_guard(loop->io);  // until a stop has closed every connection
    loop->io.run();
  });
}

void HttpFront::stop() {
  if (loop_->stopAsked.exchange(true)) return;
  asio::post(loop_->io, [loop = loop_.get()] { loop->beginStop(); });
}

HttpFrontStop HttpFront::wait() {
  if (loop_->thread.joinable()) loop_->thread.join();
  return loop_->stopped;
}

std::size_t HttpFront::openConnections() const { return loop_->open; }

std::size_t HttpFront::maxConnections() const { return loop_->options.maxConnections; }

}  // namespace nmt::serve
