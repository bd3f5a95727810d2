#include "eval/Chrf.h"

#include "eval/PythonText.h"
#include "eval/ReferenceStreams.h"

#include <fmt/format.h>

#include <stdexcept>
#include <unordered_map>

namespace nmt {
namespace {

using CharNgrams = std::unordered_map<std::u32string, std::size_t>;

std::vector<CharNgrams> charNgrams(const std::string& line, const ChrfOptions& options) {
  std::u32string text = decodeUtf8(options.lowercase ? pythonLower(line) : line);
  std::u32string squeezed;
  for (char32_t c : text)
    if (!isPythonSpace(c)) squeezed.push_back(c);
  std::vector<CharNgrams> out(options.charOrder);
  for (int n = 1; n <= options.charOrder; ++n)
    for (std::size_t i = 0; i + n <= squeezed.size(); ++i) ++out[n - 1][squeezed.substr(i, n)];
  return out;
}

std::vector<std::size_t> matchStatistics(const std::vector<CharNgrams>& hyp, const std::vector<CharNgrams>& ref) {
  std::vector<std::size_t> stats;
  for (std::size_t n = 0; n < hyp.size(); ++n) {
    std::size_t hypCount = 0, refCount = 0, matches = 0;
    for (const auto& [ngram, count] : hyp[n]) {
      hypCount += count;
      const auto it = ref[n].find(ngram);
      if (it != ref[n].end()) matches += std::min(count, it->second);
    }
    for (const auto& entry : ref[n]) refCount += entry.second;
    // sacreBLEU does not count hypothesis n-grams of an order the reference has none of.
    stats.insert(stats.end(), {ref[n].empty() ? 0 : hypCount, refCount, matches});
  }
  return stats;
}

}  // namespace

std::vector<std::size_t> chrfStatistics(const std::string& hypothesis, const std::string& reference,
                                        const ChrfOptions& options) {
  return matchStatistics(charNgrams(hypothesis, options), charNgrams(reference, options));
}

double chrfFromStatistics(const std::vector<std::size_t>& stats, const ChrfOptions& options) {
  const double factor = static_cast<double>(options.beta) * options.beta;
  double precision = 0.0, recall = 0.0;
  int effectiveOrder = 0;
  for (int n = 0; n < options.charOrder; ++n) {
    const std::size_t hyp = stats[3 * n], ref = stats[3 * n + 1], match = stats[3 * n + 2];
    if (hyp > 0 && ref > 0) {
      precision += static_cast<double>(match) / hyp;
      recall += static_cast<double>(match) / ref;
      ++effectiveOrder;
    }
  }
  if (effectiveOrder == 0) return 0.0;
  precision /= effectiveOrder;
  recall /= effectiveOrder;
  if (precision + recall == 0.0) return 0.0;
  return 100.0 * (1 + factor) * precision * recall / (factor * precision + recall);
}

ChrfScore corpusChrf(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references, const ChrfOptions& options) {
  checkReferenceStreams(hypotheses.size(), references);
  std::vector<std::size_t> total(3 * options.charOrder, 0);
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const auto hyp = charNgrams(hypotheses[i], options);
    std::vector<std::size_t> best;
    double bestScore = -1.0;
    for (const auto& stream : references) {
      auto stats = matchStatistics(hyp, charNgrams(stream[i], options));
      const double score = chrfFromStatistics(stats, options);
      if (score > bestScore) {
        bestScore = score;
        best = std::move(stats);
      }
    }
    for (std::size_t k = 0; k < total.size(); ++k) total[k] += best[k];
  }
  return {chrfFromStatistics(total, options), options.beta, options.charOrder, options.lowercase};
}

std::string ChrfScore::format() const { return fmt::format("chrF{} = {:.2f}", beta, score); }

}  // namespace nmt
