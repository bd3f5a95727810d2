// nmt-serve's connections alone (HttpFront), with a handler that echoes: framing, refusals, keep-alive,
// and a graceful stop, over real sockets on 127.0.0.1.
#include "HttpFront.h"

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>

using namespace nmt::serve;
using namespace std::chrono_literals;

namespace {

// A blocking client socket; -1 when the connection was refused.
int connectTo(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(s, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(s);
    return -1;
  }
  timeval timeout{10, 0};
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  return s;
}

void sendAll(int s, const std::string& data) {
  for (std::size_t sent = 0; sent < data.size();) {
    const auto n = ::send(s, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

// One response read whole (by its Content-Length): the head, then the body.
struct Reply {
  std::string head, body;
  std::string statusLine() const { return head.substr(0, head.find("\r\n")); }
  bool closes() const { return head.find("Connection: close") != std::string::npos; }
};

Reply readReply(int s, std::string& pending) {
  char chunk[4096];
  for (;;) {
    const auto end = pending.find("\r\n\r\n");
    if (end != std::string::npos) {
      Reply reply{pending.substr(0, end), ""};
      const auto at = reply.head.find("Content-Length: ");
      const std::size_t length = at == std::string::npos ? 0 : std::stoul(reply.head.substr(at + 16));
      if (pending.size() >= end + 4 + length) {
        reply.body = pending.substr(end + 4, length);
        pending.erase(0, end + 4 + length);
        return reply;
      }
    }
    const auto n = ::recv(s, chunk, sizeof(chunk), 0);
    if (n <= 0) return {pending, ""};  // closed (or timed out) before a whole answer
    pending.append(chunk, static_cast<std::size_t>(n));
  }
}

Reply requestOnce(int port, const std::string& request) {
  const int s = connectTo(port);
  REQUIRE(s >= 0);
  sendAll(s, request);
  std::string pending;
  auto reply = readReply(s, pending);
  ::close(s);
  return reply;
}

// Whether the server closed the connection: recv sees the end (or a reset) before `within`.
bool closedBy(int s, std::chrono::seconds within) {
  timeval timeout{static_cast<long>(within.count()), 0};
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  char byte;
  return ::recv(s, &byte, 1, 0) <= 0 && errno != EAGAIN;
}

std::string post(const std::string& body, const std::string& path = "/echo") {
  return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// Answers "METHOD PATH BODY" at once.
void echo(HttpRequest request, Respond respond) {
  HttpResponse response;
  response.contentType = "text/plain";
  response.body = request.method + " " + request.path() + " " + request.body;
  respond(std::move(response));
}

struct RunningFront {
  explicit RunningFront(HttpFront::Handler handler, HttpFrontOptions options = {})
      : front(options, std::move(handler)) {
    port = front.bind("127.0.0.1", 0);
    front.start();
  }
  HttpFront front;
  int port = 0;
};

}  // namespace

TEST_CASE("HttpFront: requests answered in order on one kept-alive connection, chunked bodies de-chunked") {
  RunningFront server(echo);
  const int s = connectTo(server.port);
  REQUIRE(s >= 0);
  sendAll(s, post("one") + "GET /two?x=1 HTTP/1.1\r\nHost: x\r\n\r\n" +
                 "POST /three HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
  std::string pending;
  const auto first = readReply(s, pending), second = readReply(s, pending), third = readReply(s, pending);
  CHECK(first.statusLine() == "HTTP/1.1 200 OK");
  CHECK(first.body == "POST /echo one");
  CHECK(second.body == "GET /two ");
  CHECK(third.body == "POST /three abcde");
  CHECK_FALSE(third.closes());
  ::close(s);
}

TEST_CASE("HttpFront: what cannot be read is refused in one JSON line, and the connection closed") {
  HttpFrontOptions options;
  options.maxBodyBytes = 100;
  RunningFront server(echo, options);
  const auto refused = [&](const std::string& request, const std::string& status, const std::string& error) {
    const auto reply = requestOnce(server.port, request);
    CHECK(reply.statusLine() == status);
    CHECK(reply.body == R"({"error":")" + error + R"("})");
    CHECK(reply.closes());
  };
  refused("POST /echo HTTP/1.1\r\nHost: x\r\n\r\nabc", "HTTP/1.1 411 Length Required",
          "POST /echo needs a Content-Length header (or a chunked body)");
  refused(post(std::string(101, 'a')), "HTTP/1.1 413 Payload Too Large",
          "the request body is over this server's limit of 100 bytes");
  refused("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n50\r\n" + std::string(80, 'a') + "\r\n50\r\n" +
              std::string(80, 'a') + "\r\n0\r\n\r\n",
          "HTTP/1.1 413 Payload Too Large", "the request body is over this server's limit of 100 bytes");
  refused("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", "HTTP/1.1 400 Bad Request",
          "the chunked request body is malformed or ended early");
  refused("HELLO THERE\r\n\r\n", "HTTP/1.1 400 Bad Request",
          "the request line could not be read (expected METHOD PATH HTTP/1.1, under 8 KB)");
  refused("GET /health HTTP/1.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n",
          "HTTP/1.1 431 Request Header Fields Too Large", "the request headers are over 8 KB");
  refused("GET /" + std::string(20000, 'a') + " HTTP/1.1\r\n\r\n", "HTTP/1.1 414 URI Too Long",
          "the request line is over 8 KB");
  // a body far over the limit, sent whole before the answer is read: the answer still arrives
  refused(post(std::string(4 << 20, 'a')), "HTTP/1.1 413 Payload Too Large",
          "the request body is over this server's limit of 100 bytes");
}

TEST_CASE("HttpFront: Expect: 100-continue gets its interim answer before the body is sent") {
  RunningFront server(echo);
  const int s = connectTo(server.port);
  REQUIRE(s >= 0);
  sendAll(s, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n");
  std::string pending;
  char chunk[256];
  const auto n = ::recv(s, chunk, sizeof(chunk), 0);
  REQUIRE(n > 0);
  CHECK(std::string(chunk, static_cast<std::size_t>(n)) == "HTTP/1.1 100 Continue\r\n\r\n");
  sendAll(s, "abc");
  CHECK(readReply(s, pending).body == "POST /echo abc");
  ::close(s);
}

TEST_CASE("HttpFront: a client that sends nothing is closed after the idle timeout, others answered meanwhile") {
  HttpFrontOptions options;
  options.idleTimeout = 1s;
  RunningFront server(echo, options);
  const int quiet = connectTo(server.port), partial = connectTo(server.port);
  REQUIRE((quiet >= 0 && partial >= 0));
  sendAll(partial, "POST /echo HTTP/1.1\r\nContent-Le");
  CHECK(requestOnce(server.port, post("busy")).body == "POST /echo busy");
  const auto start = std::chrono::steady_clock::now();
  CHECK(closedBy(quiet, 5s));
  CHECK(closedBy(partial, 5s));
  CHECK(std::chrono::steady_clock::now() - start < 3s);
  ::close(quiet);
  ::close(partial);
}

TEST_CASE("HttpFront: a stop answers the request under way and those still in the kernel's queue, then refuses") {
  // The first request's handler holds the loop's thread while the second client connects and sends,
  // and the stop is asked for: the second connection is in the kernel's queue, not yet the loop's.
  std::promise<void> entered;
  std::promise<void> release;
  auto released = release.get_future().share();
  std::atomic<int> handled{0};
  RunningFront server([&](HttpRequest request, Respond respond) {
    if (handled++ == 0) {
      entered.set_value();
      released.wait();
    }
    echo(std::move(request), std::move(respond));
  });
  const int first = connectTo(server.port);
  REQUIRE(first >= 0);
  sendAll(first, post("first"));
  entered.get_future().wait();
  const int second = connectTo(server.port);
  REQUIRE(second >= 0);
  sendAll(second, post("second"));
  const int idle = connectTo(server.port);  // sends nothing: a stop still waits the idle timeout for it
  server.front.stop();
  release.set_value();
  std::string pending1, pending2;
  const auto one = readReply(first, pending1), two = readReply(second, pending2);
  CHECK(one.body == "POST /echo first");
  CHECK(one.closes());
  CHECK(two.body == "POST /echo second");
  CHECK(two.closes());
  const auto stopped = server.front.wait();
  CHECK(stopped.cutWhileReading == 0);
  CHECK(connectTo(server.port) == -1);
  for (const int s : {first, second, idle}) ::close(s);
}

TEST_CASE("HttpFront: a stop closes kept-alive connections with nothing sent, answers late answers, cuts slow senders") {
  HttpFrontOptions options;
  options.stopGrace = 1s;
  options.idleTimeout = 10s;
  std::mutex mutex;
  std::vector<Respond> held;  // answered after the stop began
  RunningFront server(
      [&](HttpRequest request, Respond respond) {
        if (request.path() == "/later") {
          std::lock_guard<std::mutex> lock(mutex);
          held.push_back(std::move(respond));
        } else {
          echo(std::move(request), std::move(respond));
        }
      },
      options);
  const int kept = connectTo(server.port), later = connectTo(server.port), slow = connectTo(server.port);
  REQUIRE((kept >= 0 && later >= 0 && slow >= 0));
  std::string pending;
  sendAll(kept, post("a"));
  CHECK(readReply(kept, pending).body == "POST /echo a");
  sendAll(later, post("b", "/later"));
  sendAll(slow, "POST /echo HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc");
  for (int k = 0; k < 100; ++k) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!held.empty()) break;
    }
    std::this_thread::sleep_for(10ms);
  }
  const auto start = std::chrono::steady_clock::now();
  server.front.stop();
  CHECK(closedBy(kept, 2s));
  std::this_thread::sleep_for(200ms);
  {
    std::lock_guard<std::mutex> lock(mutex);
    REQUIRE(held.size() == 1);
    HttpResponse late;
    late.body = "late";
    held.front()(std::move(late));
  }
  std::string pendingLater;
  const auto reply = readReply(later, pendingLater);
  CHECK(reply.body == "late");
  CHECK(reply.closes());
  CHECK(closedBy(slow, 5s));
  CHECK(server.front.wait().cutWhileReading == 1);
  CHECK(std::chrono::steady_clock::now() - start < 3s);
  for (const int s : {kept, later, slow}) ::close(s);
}
