#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nmt {

// chrF as sacreBLEU 2.x computes it by default: character n-grams of orders 1-6 with
// whitespace removed, statistics summed over the corpus, precision and recall averaged over
// the orders both sides have n-grams for, then F-beta (beta 2).
struct ChrfOptions {
  int beta = 2;
  int charOrder = 6;
  bool lowercase = false;
};

struct ChrfScore {
  double score = 0.0;  // 0..100
  int beta = 2;
  int charOrder = 6;
  bool lowercase = false;
  std::string format() const;  // "chrF2 = 55.12"
};

// Per order: hypothesis n-grams, reference n-grams, matches (3 numbers an order).
std::vector<std::size_t> chrfStatistics(const std::string& hypothesis, const std::string& reference,
                                        const ChrfOptions& options = {});
double chrfFromStatistics(const std::vector<std::size_t>& stats, const ChrfOptions& options = {});

// `references[k][i]` is the k-th reference of hypothesis i; per sentence the reference with
// the best chrF counts, as in sacreBLEU.
ChrfScore corpusChrf(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references, const ChrfOptions& options = {});

}  // namespace nmt
