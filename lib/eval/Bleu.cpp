#include "eval/Bleu.h"

#include "eval/PythonText.h"
#include "eval/ReferenceStreams.h"
#include "eval/Tokenizer13a.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <unordered_map>

namespace nmt {
namespace {

using NgramCounts = std::unordered_map<std::string, std::size_t>;

std::vector<std::string> preprocess(const std::string& line, bool lowercase) {
  const std::string text = lowercase ? pythonLower(line) : line;
  const std::string tokens = tokenize13a(pythonRstrip(text));
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < tokens.size()) {
    std::size_t end = tokens.find(' ', start);
    if (end == std::string::npos) end = tokens.size();
    out.push_back(tokens.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// All n-grams of orders 1..4, keyed by their tokens joined with spaces.
NgramCounts countNgrams(const std::vector<std::string>& tokens) {
  NgramCounts counts;
  for (int n = 1; n <= BleuStats::kMaxOrder; ++n)
    for (std::size_t i = 0; i + n <= tokens.size(); ++i) {
      std::string key = tokens[i];
      for (int k = 1; k < n; ++k) key += ' ' + tokens[i + k];
      ++counts[key];
    }
  return counts;
}

std::size_t orderOf(const std::string& ngram) { return std::count(ngram.begin(), ngram.end(), ' ') + 1; }

// sacreBLEU's choice: the reference length closest to the hypothesis length, the shorter on a tie.
std::size_t closestReferenceLength(std::size_t hypLength, const std::vector<std::size_t>& refLengths) {
  std::size_t best = refLengths.front();
  for (std::size_t len : refLengths) {
    const auto diff = std::llabs(static_cast<long long>(hypLength) - static_cast<long long>(len));
    const auto bestDiff = std::llabs(static_cast<long long>(hypLength) - static_cast<long long>(best));
    if (diff < bestDiff || (diff == bestDiff && len < best)) best = len;
  }
  return best;
}

}  // namespace

BleuStats& BleuStats::operator+=(const BleuStats& other) {
  for (int n = 0; n < kMaxOrder; ++n) {
    matches[n] += other.matches[n];
    totals[n] += other.totals[n];
  }
  hypLength += other.hypLength;
  refLength += other.refLength;
  return *this;
}

BleuStats bleuStatistics(const std::string& hypothesis, const std::vector<std::string>& references,
                         const BleuOptions& options) {
  if (references.empty()) throw std::invalid_argument("BLEU needs at least one reference");
  const auto hypTokens = preprocess(hypothesis, options.lowercase);
  NgramCounts maxRefCounts;
  std::vector<std::size_t> refLengths;
  for (const auto& ref : references) {
    const auto refTokens = preprocess(ref, options.lowercase);
    refLengths.push_back(refTokens.size());
    for (const auto& [ngram, count] : countNgrams(refTokens)) {
      auto& best = maxRefCounts[ngram];
      best = std::max(best, count);
    }
  }

  BleuStats stats;
  stats.hypLength = hypTokens.size();
  stats.refLength = closestReferenceLength(hypTokens.size(), refLengths);
  for (int n = 1; n <= BleuStats::kMaxOrder; ++n)
    stats.totals[n - 1] = hypTokens.size() >= static_cast<std::size_t>(n) ? hypTokens.size() - n + 1 : 0;
  for (const auto& [ngram, count] : countNgrams(hypTokens)) {
    const auto ref = maxRefCounts.find(ngram);
    if (ref != maxRefCounts.end()) stats.matches[orderOf(ngram) - 1] += std::min(count, ref->second);
  }
  return stats;
}

BleuScore bleuFromStatistics(const BleuStats& stats, const BleuOptions& options) {
  BleuScore out;
  out.lowercase = options.lowercase;
  out.hypLength = stats.hypLength;
  out.refLength = stats.refLength;
  out.ratio = stats.refLength > 0 ? static_cast<double>(stats.hypLength) / static_cast<double>(stats.refLength) : 0.0;
  if (stats.hypLength < stats.refLength)
    out.brevityPenalty = stats.hypLength > 0 ? std::exp(1.0 - static_cast<double>(stats.refLength) / stats.hypLength) : 0.0;
  else
    out.brevityPenalty = 1.0;

  if (std::all_of(stats.matches.begin(), stats.matches.end(), [](std::size_t m) { return m == 0; })) return out;

  // "exp" smoothing (mteval-v13a): the k-th order without a match gets precision 1 / (2^k * total).
  double smooth = 1.0;
  int order = BleuStats::kMaxOrder;
  for (int n = 0; n < BleuStats::kMaxOrder; ++n) {
    if (stats.totals[n] == 0) break;
    if (options.effectiveOrder) order = n + 1;
    if (stats.matches[n] == 0) {
      smooth *= 2.0;
      out.precisions[n] = 100.0 / (smooth * static_cast<double>(stats.totals[n]));
    } else {
      out.precisions[n] = 100.0 * static_cast<double>(stats.matches[n]) / static_cast<double>(stats.totals[n]);
    }
  }
  double logSum = 0.0;
  for (int n = 0; n < order; ++n) logSum += out.precisions[n] > 0.0 ? std::log(out.precisions[n]) : -9999999999.0;
  out.score = out.brevityPenalty * std::exp(logSum / order);
  return out;
}

BleuScore corpusBleu(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references, const BleuOptions& options) {
  checkReferenceStreams(hypotheses.size(), references);
  BleuStats total;
  std::vector<std::string> refs(references.size());
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    for (std::size_t k = 0; k < references.size(); ++k) refs[k] = references[k][i];
    total += bleuStatistics(hypotheses[i], refs, options);
  }
  return bleuFromStatistics(total, options);
}

BleuScore sentenceBleu(const std::string& hypothesis, const std::vector<std::string>& references, bool lowercase) {
  const BleuOptions options{lowercase, /*effectiveOrder=*/true};
  return bleuFromStatistics(bleuStatistics(hypothesis, references, options), options);
}

std::string BleuScore::format() const {
  return fmt::format("BLEU = {:.2f} {:.1f}/{:.1f}/{:.1f}/{:.1f} (BP = {:.3f} ratio = {:.3f} hyp_len = {} ref_len = {})",
                     score, precisions[0], precisions[1], precisions[2], precisions[3], brevityPenalty, ratio,
                     hypLength, refLength);
}

}  // namespace nmt
