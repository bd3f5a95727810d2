#include "decode/Sampler.h"

#include "util/SplitMix.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nmt {
namespace {

// A row's pieces one draw keeps, largest first, with their weights at temperature relative to the
// largest's: among the topk largest finite entries, cut to the fewest whose share reaches topp. Empty
// when nothing is finite.
struct KeptPieces {
  std::vector<int64_t> columns;
  std::vector<double> weights;
};

KeptPieces keptPieces(const double* row, int64_t V, const Sampling& sampling) {
  KeptPieces kept;
  auto& order = kept.columns;
  order.reserve(static_cast<std::size_t>(V));
  for (int64_t c = 0; c < V; ++c)
    if (std::isfinite(row[c])) order.push_back(c);
  if (order.empty()) return kept;
  const auto larger = [&](int64_t a, int64_t b) { return row[a] > row[b] || (row[a] == row[b] && a < b); };
  auto keep = static_cast<std::size_t>(sampling.topk);
  if (keep == 0 || keep > order.size()) keep = order.size();
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(), larger);
  order.resize(keep);
  auto& weights = kept.weights;
  weights.resize(keep);
  const double top = row[order[0]] / sampling.temperature;
  for (std::size_t i = 0; i < keep; ++i) weights[i] = std::exp(row[order[i]] / sampling.temperature - top);
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  if (sampling.topp < 1.0) {  // the fewest largest whose share reaches topp
    double sum = 0.0;
    std::size_t n = 0;
    while (n < keep && sum < sampling.topp * total) sum += weights[n++];
    weights.resize(std::max<std::size_t>(1, n));
    order.resize(weights.size());
  }
  return kept;
}

int64_t drawRow(const double* row, int64_t V, const Sampling& sampling, double u) {
  const auto [order, weights] = keptPieces(row, V, sampling);
  if (order.empty()) return std::max_element(row, row + V) - row;
  const double kept = std::accumulate(weights.begin(), weights.end(), 0.0);
  double target = u * kept, sum = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    sum += weights[i];
    if (target < sum) return order[i];
  }
  return order[weights.size() - 1];  // u * kept rounded up to the sum
}

}  // namespace

double uniformDraw(uint64_t seed, uint64_t stream, uint64_t step) {
  const uint64_t bits = splitMix(splitMix(splitMix(seed) ^ stream) ^ step);
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

at::Tensor samplePieces(const at::Tensor& logProbs, const Sampling& sampling, const std::vector<uint64_t>& streams,
                        const std::vector<uint64_t>& steps) {
  const auto rows = logProbs.to(at::kCPU, at::kDouble).contiguous();
  const int64_t R = rows.size(0), V = rows.size(1);
  auto out = at::empty({R}, at::kLong);
  auto column = out.accessor<int64_t, 1>();
  for (int64_t r = 0; r < R; ++r)
    column[r] = drawRow(rows.data_ptr<double>() + r * V, V, sampling,
                     uniformDraw(sampling.seed, streams[static_cast<std::size_t>(r)], steps[static_cast<std::size_t>(r)]));
  return out.to(logProbs.device());
}


std::vector<SampledCandidate> sampleCandidates(const double* rows, const std::vector<double>& beamScores, int64_t V,
                                               const StepColumns& columns, const Sampling& sampling, uint64_t stream,
                                               uint64_t step, std::size_t count) {
  std::vector<std::pair<double, SampledCandidate>> keyed;  // (Gumbel key, candidate)
  for (std::size_t b = 0; b < beamScores.size(); ++b) {
    if (!std::isfinite(beamScores[b])) continue;
    const double* row = rows + static_cast<int64_t>(b) * V;
    const auto kept = keptPieces(row, V, sampling);
    for (const int64_t c : kept.columns) {
      const double score = beamScores[b] + row[c];
      const auto piece = static_cast<uint64_t>(columns.piece(c));
      const double u = uniformDraw(sampling.seed, stream, (step << 40) ^ (static_cast<uint64_t>(b) << 32) ^ piece);
      keyed.push_back({score / sampling.temperature - std::log(-std::log(u)),
                       {score, static_cast<int64_t>(b) * V + c}});
    }
  }
  const std::size_t n = std::min(count, keyed.size());
  std::partial_sort(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(n), keyed.end(),
                    [](const auto& x, const auto& y) {
                      return x.first > y.first || (x.first == y.first && x.second.index < y.second.index);
                    });
  std::vector<SampledCandidate> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(keyed[i].second);
  return out;
}

}  // namespace nmt
