// Load on a running nmt-serve: N clients, each on its own kept-alive connection, send one
// sentence per request (cycling through a file) for a time or a request budget, and the
// figures are printed: sentences/s, latency percentiles, errors. Loopback use is the point:
//   nmt-bench-serve --port P --input test.de [--clients 64] [--seconds 60] [--max-requests 100000]
#include "common/AppMain.h"
#include "util/Stopwatch.h"
#include "util/TextLineReader.h"

#include <fmt/core.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

namespace po = boost::program_options;
using namespace nmt;

namespace {

struct Totals {
  std::mutex mutex;
  std::vector<double> latencies;  // seconds, of answered requests
  std::size_t errors = 0;
  std::string firstError;
};

double percentile(std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  const auto i = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain("nmt-bench-serve", [&] {
    std::string host, input;
    int port, clients;
    double seconds;
    std::size_t maxRequests;
    po::options_description desc("Options");
    desc.add_options()("host", po::value(&host)->default_value("127.0.0.1"), "server address")(
        "port", po::value(&port)->required(), "server port")(
        "input,i", po::value(&input)->required(), "sentences to send, one a line, one per request")(
        "clients", po::value(&clients)->default_value(64), "concurrent clients, one connection each")(
        "seconds", po::value(&seconds)->default_value(60.0, "60"), "how long to send")(
        "max-requests", po::value(&maxRequests)->default_value(100000), "stop after this many requests in all");
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-bench-serve", "nmt-bench-serve --port P --input FILE [options]", argc, argv, desc,
                               {}, vm))
      return 0;
    if (clients < 1) throw po::error("--clients must be at least 1");
    std::vector<std::string> bodies;
    {
      TextLineReader reader(input);
      std::string line;
      while (reader.next(line))
        if (!line.empty()) bodies.push_back(nlohmann::json{{"text", {line}}}.dump());
    }
    if (bodies.empty()) throw po::error("--input " + input + " has no sentences");

    Totals totals;
    std::atomic<std::size_t> next{0};
    const Stopwatch clock;
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c)
      threads.emplace_back([&] {
        httplib::Client client(host, port);
        client.set_keep_alive(true);
        client.set_tcp_nodelay(true);
        client.set_read_timeout(120);
        std::vector<double> mine;
        std::size_t errors = 0;
        std::string firstError;
        for (;;) {
          const std::size_t n = next++;
          if (n >= maxRequests || clock.seconds() >= seconds) break;
          const Stopwatch latency;
          const auto result = client.Post("/v1/translate", bodies[n % bodies.size()], "application/json");
          if (result && result->status == 200) {
            mine.push_back(latency.seconds());
          } else {
            ++errors;
            if (firstError.empty())
              firstError = result ? fmt::format("HTTP {}: {}", result->status, result->body)
                                  : "no answer: " + httplib::to_string(result.error());
          }
        }
        std::lock_guard<std::mutex> lock(totals.mutex);
        totals.latencies.insert(totals.latencies.end(), mine.begin(), mine.end());
        totals.errors += errors;
        if (totals.firstError.empty()) totals.firstError = firstError;
      });
    for (auto& t : threads) t.join();
    const double elapsed = clock.seconds();
    auto& l = totals.latencies;
    std::sort(l.begin(), l.end());
    fmt::print("clients {:3}: {} sentences in {:.1f} s: {:.1f} sentences/s; latency p50 {:.0f} ms, p95 {:.0f} ms, "
               "p99 {:.0f} ms, max {:.0f} ms; errors {}\n",
               clients, l.size(), elapsed, static_cast<double>(l.size()) / elapsed, percentile(l, 0.50) * 1000,
               percentile(l, 0.95) * 1000, percentile(l, 0.99) * 1000, l.empty() ? 0.0 : l.back() * 1000,
               totals.errors);
    if (totals.errors) fmt::print(stderr, "nmt-bench-serve: first error: {}\n", totals.firstError);
    return totals.errors ? 1 : 0;
  });
}
