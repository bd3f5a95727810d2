#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace nmt {

// BLEU as sacreBLEU 2.x computes it by default: 13a tokenization, n-grams 1-4 with clipped
// counts against all references, closest reference length, brevity penalty, "exp" smoothing.
struct BleuStats {
  static constexpr int kMaxOrder = 4;
  std::array<std::size_t, kMaxOrder> matches{};  // clipped n-gram matches per order
  std::array<std::size_t, kMaxOrder> totals{};   // hypothesis n-grams per order
  std::size_t hypLength = 0;
  std::size_t refLength = 0;

  BleuStats& operator+=(const BleuStats& other);
};

struct BleuScore {
  double score = 0.0;                            // 0..100
  std::array<double, BleuStats::kMaxOrder> precisions{};  // 0..100, smoothed as sacreBLEU does
  double brevityPenalty = 0.0;
  double ratio = 0.0;                            // hypothesis length / reference length
  std::size_t hypLength = 0;
  std::size_t refLength = 0;
  bool lowercase = false;  // scored lowercased (BleuOptions::lowercase); always 13a tokens, exp smoothing

  // "BLEU = 28.31 60.1/34.2/21.0/13.5 (BP = 0.981 ratio = 0.981 hyp_len = 12719 ref_len = 12955)"
  std::string format() const;
};

struct BleuOptions {
  bool lowercase = false;
  // Sentence-level BLEU: average only over orders the hypothesis has n-grams for.
  bool effectiveOrder = false;
};

// Statistics of one hypothesis against its references (one or more).
BleuStats bleuStatistics(const std::string& hypothesis, const std::vector<std::string>& references,
                         const BleuOptions& options = {});
BleuScore bleuFromStatistics(const BleuStats& stats, const BleuOptions& options = {});

// Corpus BLEU. `references[k][i]` is the k-th reference of hypothesis i; every stream has as
// many lines as `hypotheses` (throws std::invalid_argument otherwise).
BleuScore corpusBleu(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references, const BleuOptions& options = {});

// Sentence BLEU as sacreBLEU's sentence_bleu (effective order on), e.g. to rank an n-best list.
BleuScore sentenceBleu(const std::string& hypothesis, const std::vector<std::string>& references,
                       bool lowercase = false);

}  // namespace nmt
