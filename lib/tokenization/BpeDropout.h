#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace nmt {

class BpeModel;
class SplitMixStream;

// Throws OptionError unless 0 <= p < 1 (`subword-alpha`).
void checkSubwordAlpha(double p);

// BPE-dropout (Provilkov et al. 2020) over a SentencePiece BPE model: a sentence's one-best ids are
// segmented again word by word, from the word's characters up, each merge step choosing the
// earliest-learned merge that a draw does not drop (each drops with probability `p`) and stopping when all
// are dropped. With p = 0 it gives the one-best ids back (SentencePiece merges the pair whose piece has the
// best score, and a model's scores fall with its ids). It works from ids, so it needs no text: the
// prepared corpus keeps none. A word holding <unk> (a character outside the vocabulary) stays as it was.
class BpeDropout {
 public:
  BpeDropout(const BpeModel& bpe, double p);  // checkSubwordAlpha(p)

  double p() const { return p_; }
  // One segmentation of `ids` (any container with size() and [k]), drawn from `draws`. Const: one
  // BpeDropout serves any number of threads, each with its own draws.
  template <typename Ids>
  std::vector<int> sample(const Ids& ids, SplitMixStream& draws) const {
    std::vector<int> out, word;
    out.reserve(ids.size() + ids.size() / 2);
    std::size_t start = 0;
    for (std::size_t k = 1; k <= ids.size(); ++k)
      if (k == ids.size() || startsWord(ids[k])) {
        word.clear();
        for (std::size_t i = start; i < k; ++i) word.push_back(ids[i]);
        appendWord(word, draws, out);
        start = k;
      }
    return out;
  }

 private:
  bool startsWord(int id) const { return id >= 0 && id < static_cast<int>(startsWord_.size()) && startsWord_[id]; }
  // One word's pieces (its one-best ids) segmented again, appended to `out`.
  void appendWord(const std::vector<int>& pieces, SplitMixStream& draws, std::vector<int>& out) const;

  double p_;
  std::vector<bool> startsWord_;                   // by id: the piece begins with "▁"
  std::vector<std::vector<int>> characters_;       // by id: its characters' ids (empty: one is not a piece)
  std::unordered_map<uint64_t, int> merges_;       // (left id << 32 | right id) -> the id of their concatenation
};

}  // namespace nmt
