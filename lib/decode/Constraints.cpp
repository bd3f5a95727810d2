#include "decode/Constraints.h"

#include <algorithm>
#include <map>

namespace nmt {

ConstraintProgress constraintProgress(const std::vector<int>& history, const std::vector<std::vector<int>>& constraints) {
  ConstraintProgress p;
  std::size_t underWay = 0;  // the longest run of an unmet constraint's first pieces that ends the history
  std::size_t underWayConstraint = constraints.size();
  for (std::size_t c = 0; c < constraints.size(); ++c) {
    const auto& pieces = constraints[c];
    if (pieces.empty()) continue;
    if (std::search(history.begin(), history.end(), pieces.begin(), pieces.end()) != history.end()) {
      p.metPieces += pieces.size();
      continue;
    }
    p.allMet = false;
    for (std::size_t n = std::min(pieces.size() - 1, history.size()); n > underWay; --n)
      if (std::equal(pieces.begin(), pieces.begin() + static_cast<std::ptrdiff_t>(n),
                     history.end() - static_cast<std::ptrdiff_t>(n))) {
        underWay = n;
        underWayConstraint = c;
        break;
      }
  }
  p.metPieces += underWay;
  const auto add = [&](int piece) {
    if (std::find(p.nextPieces.begin(), p.nextPieces.end(), piece) == p.nextPieces.end()) p.nextPieces.push_back(piece);
  };
  if (underWayConstraint < constraints.size()) add(constraints[underWayConstraint][underWay]);
  for (const auto& pieces : constraints)
    if (!pieces.empty() && std::search(history.begin(), history.end(), pieces.begin(), pieces.end()) == history.end())
      add(pieces[0]);
  return p;
}

std::size_t constraintPieces(const std::vector<std::vector<int>>& constraints) {
  std::size_t n = 0;
  for (const auto& c : constraints) n += c.size();
  return n;
}

std::vector<std::size_t> allocateBanks(const std::vector<BankedCandidate>& candidates, std::size_t slots) {
  std::map<std::size_t, std::vector<std::size_t>, std::greater<>> banks;  // most met first
  for (std::size_t i = 0; i < candidates.size(); ++i) banks[candidates[i].bank].push_back(i);
  for (auto& [bank, members] : banks)
    std::stable_sort(members.begin(), members.end(),
                     [&](std::size_t a, std::size_t b) { return candidates[a].score > candidates[b].score; });
  std::vector<std::size_t> taken;
  std::map<std::size_t, std::size_t> next;  // each bank's next member
  for (bool any = true; any && taken.size() < slots;) {
    any = false;
    for (auto& [bank, members] : banks) {
      auto& at = next[bank];
      if (at >= members.size() || taken.size() >= slots) continue;
      taken.push_back(members[at++]);
      any = true;
    }
  }
  return taken;
}

}  // namespace nmt
