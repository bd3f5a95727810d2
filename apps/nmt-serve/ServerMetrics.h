#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace nmt::serve {

// What GET /metrics says, in Prometheus' text format: counters the routes move as they answer, and
// gauges read when it is asked for (given to render). Thread-safe.
class ServerMetrics {
 public:
  // Route names are the server's own (a fixed set: "translate", "libretranslate", ...), never a
  // client's path, so the series stay few.
  void answered(const std::string& route, int status, double seconds);
  void translated(const std::string& model, std::size_t sentences, std::size_t characters);
  void refused(const std::string& reason);  // key, quota, rate, characters
  void reloaded(bool ok);

  // Values read at the moment of the request.
  struct Gauges {
    std::size_t openConnections = 0;
    bool ready = false;
    struct Model {
      std::string name, source, target, encoder, decoder;
      bool int8 = false, shortlist = false;
      std::size_t queued = 0, batches = 0, batchedSentences = 0, largestBatch = 0;
      double loadedAt = 0;  // Unix time
    };
    std::vector<Model> models;
  };
  std::string render(const Gauges& gauges) const;

  static constexpr std::array<double, 12> kLatencyBuckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                          0.5,   1,    2.5,   5,    10,  30};

 private:
  struct Histogram {
    std::array<std::size_t, kLatencyBuckets.size()> counts{};
    std::size_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::size_t> requests_;
  std::map<std::string, Histogram> latency_;
  std::map<std::string, std::pair<std::size_t, std::size_t>> translated_;  // sentences, characters by model
  std::map<std::string, std::size_t> refused_;
  std::size_t reloads_ = 0, failedReloads_ = 0;
};

}  // namespace nmt::serve
