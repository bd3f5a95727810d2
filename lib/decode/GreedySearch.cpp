#include "decode/GreedySearch.h"

#include "decode/GreedyPick.h"
#include "decode/Search.h"
#include "tokenization/SpecialIds.h"

#include <limits>

namespace nmt {

std::vector<Hypothesis> greedySearch(Seq2Seq& model, const Batch& batch, const DecodeLimits& limits,
                                     bool keepAttention, const BatchShortlist* shortlist, bool scored) {
  const int64_t rows = batch.source.size(0);
  const auto device = batch.source.device();
  const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  DecoderMemory memory = model->prepareDecoder(encoded);

  std::vector<int64_t> limit(rows);
  int64_t longest = 0;
  for (int64_t r = 0; r < rows; ++r) {
    limit[r] = limits.maxLength(batch.sourceLengths[r].item<int64_t>());
    longest = std::max(longest, limit[r]);
  }
  const auto longOptions = torch::TensorOptions().dtype(torch::kInt64).device(device);
  // A row is done at </s>, or when the step count reaches its limit. Done rows leave the
  // decoder's batch, so that a batch's last steps cost what its longest rows cost.
  auto alive = torch::arange(rows, longOptions);  // the batch rows still decoding
  auto aliveLimits = torch::tensor(limit, torch::kInt64).to(device);

  DecoderState state = model->initialDecoderState(encoded);
  // A decoder that reads shared memory rows keeps the batch's memory whole, read through `alive`.
  const bool sharedMemory = model->decoder().readsMemoryRowsInPlace(device);
  const OutputSlice* slice = shortlist ? &shortlist->slice : nullptr;
  auto rowMasks = shortlist ? shortlist->ownPieces : torch::Tensor();  // the alive rows'
  auto previous = torch::full({rows}, SpecialIds::kBos, longOptions);
  auto scores = torch::full({rows}, scored ? 0.0 : std::numeric_limits<double>::quiet_NaN(),
                            torch::TensorOptions().dtype(torch::kFloat64).device(device));
  std::vector<torch::Tensor> tokens, attention;  // per step, over all batch rows
  for (int64_t t = 0; t < longest; ++t) {
    auto step = model->decodeStep(previous, state, memory, slice, sharedMemory ? alive : torch::Tensor());
    auto [best, next] = greedyStep(step.logits, slice, rowMasks, scored);
    if (scored) scores.index_add_(0, alive, best.to(torch::kFloat64));
    tokens.push_back(torch::full({rows}, SpecialIds::kPad, longOptions).index_copy_(0, alive, next));
    if (keepAttention)
      attention.push_back(torch::zeros({rows, step.attention.size(1)}, step.attention.options())
                              .index_copy_(0, alive, step.attention));
    const auto going = next.ne(SpecialIds::kEos) & aliveLimits.gt(t + 1);
    const auto stillAlive = going.sum().item<int64_t>();
    if (stillAlive == 0) break;
    state = step.state;
    previous = next;
    if (stillAlive < alive.size(0)) {
      const auto goes = going.cpu();
      const std::vector<bool> goesOn(goes.data_ptr<bool>(), goes.data_ptr<bool>() + goes.numel());
      const auto order = holesFilledFromTheEnd(goesOn);
      const std::vector<int64_t> rowsKept(order.begin(), order.end());
      const auto keep = torch::tensor(rowsKept, torch::kInt64).to(device);
      alive = alive.index_select(0, keep);
      aliveLimits = aliveLimits.index_select(0, keep);
      if (rowMasks.defined()) rowMasks = rowMasks.index_select(0, keep);
      previous = previous.index_select(0, keep);
      // the stepped state is used up: on the CPU its rows move in place
      state = device.is_cpu() ? state.reordered(rowsKept) : state.select(keep);
      if (!sharedMemory) memory = memory.select(keep);
    }
  }

  const auto allTokens = torch::stack(tokens, 1).cpu();  // [B, steps]
  const auto allScores = scores.cpu();
  const auto allAttention = keepAttention ? torch::stack(attention, 1).to(torch::kCPU, torch::kFloat32) : torch::Tensor();
  auto tok = allTokens.accessor<int64_t, 2>();
  std::vector<Hypothesis> out(rows);
  for (int64_t r = 0; r < rows; ++r) {
    auto& h = out[r];
    int64_t steps = 0;
    for (; steps < allTokens.size(1); ++steps) {
      const auto id = tok[r][steps];
      if (id == SpecialIds::kPad) break;
      if (id == SpecialIds::kEos) {
        h.finished = true;
        ++steps;
        break;
      }
      h.ids.push_back(static_cast<int>(id));
    }
    h.score = allScores[r].item<double>();
    if (keepAttention)
      h.attention = allAttention[r].narrow(0, 0, steps).narrow(1, 0, batch.sourceLengths[r].item<int64_t>()).clone();
  }
  return out;
}

}  // namespace nmt
