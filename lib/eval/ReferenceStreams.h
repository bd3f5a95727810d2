#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace nmt {

// references[k][i] is the k-th reference of hypothesis i: there must be at least one stream,
// each as long as the hypotheses. Throws std::invalid_argument otherwise.
inline void checkReferenceStreams(std::size_t hypotheses, const std::vector<std::vector<std::string>>& references) {
  if (references.empty()) throw std::invalid_argument("scoring needs at least one reference stream");
  for (const auto& stream : references)
    if (stream.size() != hypotheses)
      throw std::invalid_argument(std::to_string(hypotheses) + " hypotheses but a reference stream of " +
                                  std::to_string(stream.size()) + " lines");
}

}  // namespace nmt
