#include "decode/BeamSearch.h"

#include "tokenization/SpecialIds.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nmt {
namespace {

RecurrentState selectRows(const RecurrentState& state, const torch::Tensor& rows) {
  RecurrentState out;
  out.h = state.h.index_select(1, rows);
  if (state.c.defined()) out.c = state.c.index_select(1, rows);
  return out;
}

struct Finished {
  Hypothesis hypothesis;
  double rank;
};

}  // namespace

double normalizedScore(double score, std::size_t length, double alpha) {
  if (alpha == 0.0) return score;
  return score / std::pow((5.0 + static_cast<double>(length)) / 6.0, alpha);
}

std::vector<Hypothesis> beamSearch(Seq2Seq& model, const at::Tensor& source, const at::Tensor& sourceLength,
                                   const at::Tensor& sourceMask, const DecodeLimits& limits, const BeamOptions& options) {
  const int64_t K = std::max<int64_t>(1, options.beamSize);
  const auto device = source.device();
  const auto encoded = model->encode(source, sourceLength, sourceMask);
  auto& decoder = model->decoder();
  const auto fullMemory = decoder->prepare(encoded);
  const int64_t limit = limits.maxLength(sourceLength[0].item<int64_t>());
  const auto longOptions = torch::TensorOptions().dtype(torch::kInt64).device(device);

  // live beams: token histories and scores on the CPU; states and memory rows on the device
  std::vector<std::vector<int>> histories{{}};
  std::vector<double> scores{0.0};
  RecurrentState state = encoded.initialState;
  std::vector<Finished> finished;

  for (int64_t t = 0; t < limit && !histories.empty(); ++t) {
    const auto n = static_cast<int64_t>(histories.size());
    std::vector<int64_t> last(n);
    for (int64_t i = 0; i < n; ++i) last[i] = histories[i].empty() ? SpecialIds::kBos : histories[i].back();
    const auto zeros = torch::zeros({n}, longOptions);
    const DecoderMemory memory{fullMemory.values.index_select(0, zeros), fullMemory.projectedKeys.index_select(0, zeros),
                               fullMemory.mask.index_select(0, zeros)};
    auto step = decoder->step(torch::tensor(last, torch::kInt64).to(device), state, memory);
    step.logProbs.index_fill_(1, torch::tensor({int64_t{SpecialIds::kPad}, int64_t{SpecialIds::kBos}}, longOptions),
                              -std::numeric_limits<float>::infinity());
    const auto total = (step.logProbs.to(torch::kFloat64) +
                        torch::tensor(scores, torch::kFloat64).to(device).unsqueeze(1)).reshape(-1);
    const auto [topScores, topIndices] = total.topk(std::min<int64_t>(2 * K, total.size(0)));
    const auto candidateScores = topScores.cpu();
    const auto candidateIndices = topIndices.cpu();
    const int64_t V = step.logProbs.size(1);

    std::vector<std::vector<int>> nextHistories;
    std::vector<double> nextScores;
    std::vector<int64_t> parents;
    const bool lastStep = t + 1 == limit;
    for (int64_t c = 0; c < candidateIndices.size(0) && static_cast<int64_t>(nextHistories.size()) < K; ++c) {
      const int64_t index = candidateIndices[c].item<int64_t>();
      const double score = candidateScores[c].item<double>();
      if (!std::isfinite(score)) break;
      const int64_t parent = index / V, token = index % V;
      auto history = histories[parent];
      if (token == SpecialIds::kEos) {
        if (c >= K) continue;  // an ending counts only among the K best candidates (as fairseq)
        Hypothesis h;
        h.tokens = history;
        h.score = score;
        h.finished = true;
        finished.push_back({std::move(h), normalizedScore(score, history.size() + 1, options.lengthPenalty)});
        continue;
      }
      history.push_back(static_cast<int>(token));
      if (lastStep) {  // cut at the limit: ends here unfinished
        const double rank = normalizedScore(score, history.size(), options.lengthPenalty);
        Hypothesis h;
        h.tokens = std::move(history);
        h.score = score;
        finished.push_back({std::move(h), rank});
        continue;
      }
      nextHistories.push_back(std::move(history));
      nextScores.push_back(score);
      parents.push_back(parent);
    }
    if (static_cast<int64_t>(finished.size()) >= K) {
      // stop when no live beam can still beat the K-th best ending: log-probabilities only
      // fall, so with alpha 0 this is exact; with alpha > 0 it judges at the next length
      if (nextScores.empty()) break;
      std::nth_element(finished.begin(), finished.begin() + (K - 1), finished.end(),
                       [](const Finished& a, const Finished& b) { return a.rank > b.rank; });
      const double bestLive = *std::max_element(nextScores.begin(), nextScores.end());
      if (normalizedScore(bestLive, static_cast<std::size_t>(t) + 2, options.lengthPenalty) <= finished[K - 1].rank) break;
    }
    histories = std::move(nextHistories);
    scores = std::move(nextScores);
    if (!histories.empty()) state = selectRows(step.state, torch::tensor(parents, torch::kInt64).to(device));
  }

  std::stable_sort(finished.begin(), finished.end(), [](const Finished& a, const Finished& b) { return a.rank > b.rank; });
  std::vector<Hypothesis> out;
  for (auto& f : finished) {
    if (static_cast<int64_t>(out.size()) >= std::max<int64_t>(1, options.nbest)) break;
    out.push_back(std::move(f.hypothesis));
  }
  return out;
}

}  // namespace nmt
