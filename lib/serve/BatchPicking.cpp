#include "serve/BatchPicking.h"

#include <algorithm>
#include <numeric>

namespace nmt::serve {

std::vector<std::size_t> pickSimilarLengths(const std::vector<std::size_t>& lengths, std::size_t most) {
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  if (lengths.size() <= most) return order;
  const auto distance = [&](std::size_t i) {
    return lengths[i] > lengths[0] ? lengths[i] - lengths[0] : lengths[0] - lengths[i];
  };
  std::stable_sort(order.begin() + 1, order.end(), [&](std::size_t a, std::size_t b) { return distance(a) < distance(b); });
  order.resize(most);
  std::sort(order.begin(), order.end());
  return order;
}

}  // namespace nmt::serve
