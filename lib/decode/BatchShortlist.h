#pragma once

#include "data/Shortlist.h"
#include "model/OutputSlice.h"
#include "model/Seq2Seq.h"

#include <ATen/core/Tensor.h>

#include <vector>

namespace nmt {

// A batch's shortlist: the output layer's rows for the union of its sentences' lists (one product
// for the batch), and each sentence's own list within them, so that a sentence is scored over its
// own list alone: its translation and scores do not depend on the sentences it shares a batch with.
struct BatchShortlist {
  OutputSlice slice;     // the union (Shortlist::batchList): column n is piece slice.ids[n]
  at::Tensor ownPieces;  // [sentences, slice.ids.size()] float32 on the model's device: 0 where the
                         // sentence's own list has the piece, -inf elsewhere (ownPiecesMask)
};

// The shortlist of a batch of sentences with these lists (each sorted, as Shortlist::targetsFor
// gives them): row i of ownPieces is lists[i]'s.
BatchShortlist batchShortlist(const Seq2Seq& model, const Shortlist& shortlist,
                              const std::vector<const std::vector<int>*>& lists);

// A sentence's sorted list with these pieces added (sorted, each once): what it must be able to produce
// beside its shortlist (a reference, a prefix, glossary terms).
std::vector<int> withPieces(const std::vector<int>& list, std::vector<int> pieces);

// [lists.size(), ids.size()] float32 on `device`: 0 at the ids (sorted) a list (sorted) holds, -inf elsewhere.
at::Tensor ownPiecesMask(const std::vector<int>& ids, const std::vector<const std::vector<int>*>& lists,
                         const c10::Device& device);

}  // namespace nmt
