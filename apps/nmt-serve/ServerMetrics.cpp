#include "ServerMetrics.h"

#include <fmt/core.h>

namespace nmt::serve {
namespace {

// A label value with \, " and line breaks escaped.
std::string label(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void family(std::string& out, const char* name, const char* type, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

void ServerMetrics::answered(const std::string& route, int status, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{route, status}];
  auto& h = latency_[route];
  for (std::size_t i = 0; i < kLatencyBuckets.size(); ++i)
    if (seconds <= kLatencyBuckets[i]) ++h.counts[i];
  ++h.count;
  h.sum += seconds;
}

void ServerMetrics::translated(const std::string& model, std::size_t sentences, std::size_t characters) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& t = translated_[model];
  t.first += sentences;
  t.second += characters;
}

void ServerMetrics::refused(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++refused_[reason];
}

void ServerMetrics::reloaded(bool ok) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++(ok ? reloads_ : failedReloads_);
}

std::string ServerMetrics::render(const Gauges& g) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  family(out, "nmt_requests_total", "counter", "Requests answered, by route and HTTP status.");
  for (const auto& [key, count] : requests_)
    out += fmt::format("nmt_requests_total{{route=\"{}\",status=\"{}\"}} {}\n", label(key.first), key.second, count);
  family(out, "nmt_request_duration_seconds", "histogram", "Time from a request read whole to its answer, by route.");
  for (const auto& [route, h] : latency_) {
    for (std::size_t i = 0; i < kLatencyBuckets.size(); ++i)
      out += fmt::format("nmt_request_duration_seconds_bucket{{route=\"{}\",le=\"{}\"}} {}\n", label(route),
                         kLatencyBuckets[i], h.counts[i]);
    out += fmt::format("nmt_request_duration_seconds_bucket{{route=\"{}\",le=\"+Inf\"}} {}\n", label(route), h.count);
    out += fmt::format("nmt_request_duration_seconds_sum{{route=\"{}\"}} {}\n", label(route), h.sum);
    out += fmt::format("nmt_request_duration_seconds_count{{route=\"{}\"}} {}\n", label(route), h.count);
  }
  family(out, "nmt_translated_sentences_total", "counter", "Sentences translated, by model.");
  for (const auto& [model, t] : translated_)
    out += fmt::format("nmt_translated_sentences_total{{model=\"{}\"}} {}\n", label(model), t.first);
  family(out, "nmt_translated_characters_total", "counter", "Characters of the sentences translated, by model.");
  for (const auto& [model, t] : translated_)
    out += fmt::format("nmt_translated_characters_total{{model=\"{}\"}} {}\n", label(model), t.second);
  family(out, "nmt_refused_requests_total", "counter",
         "Translation requests refused before decoding, by reason (key, quota, rate, characters).");
  for (const auto& [reason, count] : refused_)
    out += fmt::format("nmt_refused_requests_total{{reason=\"{}\"}} {}\n", label(reason), count);
  family(out, "nmt_reloads_total", "counter", "Model reloads, by outcome.");
  out += fmt::format("nmt_reloads_total{{outcome=\"ok\"}} {}\nnmt_reloads_total{{outcome=\"failed\"}} {}\n", reloads_,
                     failedReloads_);
  family(out, "nmt_open_connections", "gauge", "Client connections open now.");
  out += fmt::format("nmt_open_connections {}\n", g.openConnections);
  family(out, "nmt_ready", "gauge", "1 while the server is ready to translate (GET /ready says 200).");
  out += fmt::format("nmt_ready {}\n", g.ready ? 1 : 0);
  family(out, "nmt_model_info", "gauge", "One series per model served, its facts as labels.");
  for (const auto& m : g.models)
    out += fmt::format(
        "nmt_model_info{{model=\"{}\",source_language=\"{}\",target_language=\"{}\",encoder=\"{}\",decoder=\"{}\","
        "int8=\"{}\",shortlist=\"{}\"}} 1\n",
        label(m.name), label(m.source), label(m.target), label(m.encoder), label(m.decoder), m.int8, m.shortlist);
  family(out, "nmt_model_loaded_timestamp_seconds", "gauge", "When each model was loaded (Unix time).");
  for (const auto& m : g.models)
    out += fmt::format("nmt_model_loaded_timestamp_seconds{{model=\"{}\"}} {:.3f}\n", label(m.name), m.loadedAt);
  family(out, "nmt_queued_sentences", "gauge", "Sentences waiting for a batch, by model.");
  for (const auto& m : g.models) out += fmt::format("nmt_queued_sentences{{model=\"{}\"}} {}\n", label(m.name), m.queued);
  family(out, "nmt_batches_total", "counter", "Batches formed (a group joining a running batch counts as one), by model.");
  for (const auto& m : g.models) out += fmt::format("nmt_batches_total{{model=\"{}\"}} {}\n", label(m.name), m.batches);
  family(out, "nmt_batched_sentences_total", "counter", "Sentences put into batches, by model (over batches: the mean batch).");
  for (const auto& m : g.models)
    out += fmt::format("nmt_batched_sentences_total{{model=\"{}\"}} {}\n", label(m.name), m.batchedSentences);
  family(out, "nmt_largest_batch_sentences", "gauge", "The most sentences one batch has held, by model.");
  for (const auto& m : g.models)
    out += fmt::format("nmt_largest_batch_sentences{{model=\"{}\"}} {}\n", label(m.name), m.largestBatch);
  return out;
}

}  // namespace nmt::serve
