#include "decode/GreedySearch.h"

#include "decode/GreedyPick.h"
#include "decode/RowOperations.h"
#include "decode/Sampler.h"
#include "decode/StepColumns.h"
#include "decode/StepRules.h"
#include "decode/rules/ProducibleRule.h"
#include "tokenization/SpecialIds.h"
#include "util/DeviceCopy.h"

#include <ATen/ATen.h>

#include <limits>

namespace nmt {
namespace {

// What a guided or sampled greedy search knows of its rows at a step.
struct GuidedRows {
  const StepRules& rules;
  const Sampling& sampling;
  const std::vector<SentenceGuide>* guides;  // one per batch row, or null
  std::vector<int64_t> alive;                // the alive rows' batch rows
  std::vector<std::vector<int>> histories;   // every batch row's pieces so far
};

// A guided or sampled step's choice for the alive rows: the step's log-probabilities with what may not
// be chosen at -inf, then the largest or a draw. As greedyStep: ids are vocabulary ids, logProbs what
// the model gave them.
GreedyPick guidedStep(at::Tensor& logits, const OutputSlice* slice, const at::Tensor& rowMasks, const GuidedRows& rows,
                      int64_t t) {
  const auto device = logits.device();
  leaveOutUnproducible(logits, slice ? rowMasks : at::Tensor());
  auto logProbs = at::log_softmax(logits, -1).to(at::kCPU, at::kFloat).contiguous();
  std::vector<const std::vector<int>*> own;
  for (int64_t r : rows.alive) own.push_back(&rows.histories[static_cast<std::size_t>(r)]);
  rows.rules.apply(logProbs, rows.alive, own);
  at::Tensor columns;
  if (rows.sampling.on()) {
    std::vector<uint64_t> streams, steps(rows.alive.size(), static_cast<uint64_t>(t));
    for (int64_t r : rows.alive)
      streams.push_back(rows.guides ? (*rows.guides)[static_cast<std::size_t>(r)].stream : static_cast<uint64_t>(r));
    columns = samplePieces(logProbs, rows.sampling, streams, steps);
  } else {
    columns = bestOfEachRow(logProbs).second;
  }
  GreedyPick pick;
  pick.logProbs = toDeviceWithoutWait(logProbs.gather(1, columns.unsqueeze(1)).squeeze(1), device);
  columns = toDeviceWithoutWait(columns, device);
  pick.ids = StepColumns(slice).pieces(columns);
  return pick;
}

}  // namespace

std::vector<Hypothesis> greedySearch(Seq2Seq& model, const Batch& batch, const DecodeLimits& limits,
                                     bool keepAttention, const BatchShortlist* shortlist, bool scored) {
  DecodingOptions options;
  options.limits = limits;
  options.keepAttention = keepAttention;
  options.scores = scored;
  return greedySearch(model, batch, options, shortlist, nullptr);
}

std::vector<Hypothesis> greedySearch(Seq2Seq& model, const Batch& batch, const DecodingOptions& options,
                                     const BatchShortlist* shortlist, const std::vector<SentenceGuide>* guides) {
  const DecodeLimits& limits = options.limits;
  const bool keepAttention = options.keepAttention;
  const bool scored = options.scores;
  const OutputSlice* slice = shortlist ? &shortlist->slice : nullptr;
  const StepRules rules(guides, options.noRepeatNgram, slice);
  const bool guided = rules.any() || options.sampling.on();
  const int64_t rows = batch.source.size(0);
  const auto device = batch.source.device();
  const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  DecoderMemory memory = model->prepareDecoder(encoded);

  std::vector<int64_t> limit(rows);
  int64_t longest = 0;
  for (int64_t r = 0; r < rows; ++r) {
    limit[r] = rules.limitFor(r, limits.maxLength(batch.sourceLengths[r].item<int64_t>()), limits.extra, limits.cap);
    longest = std::max(longest, limit[r]);
  }
  const auto longOptions = torch::TensorOptions().dtype(torch::kInt64).device(device);
  // A row is done at </s>, or when the step count reaches its limit. Done rows leave the
  // decoder's batch, so that a batch's last steps cost what its longest rows cost.
  auto alive = torch::arange(rows, longOptions);  // the batch rows still decoding
  auto aliveLimits = onDevice(limit, device);

  DecoderState state = model->initialDecoderState(encoded);
  // A decoder that reads shared memory rows keeps the batch's memory whole, read through `alive`.
  const bool sharedMemory = model->decoder().readsMemoryRowsInPlace(device);
  auto rowMasks = shortlist ? shortlist->ownPieces : torch::Tensor();  // the alive rows'
  auto previous = torch::full({rows}, SpecialIds::kBos, longOptions);
  auto scores = torch::full({rows}, scored ? 0.0 : std::numeric_limits<double>::quiet_NaN(),
                            torch::TensorOptions().dtype(torch::kFloat64).device(device));
  std::vector<torch::Tensor> tokens, attention;  // per step, over all batch rows
  GuidedRows guidedRows{rules, options.sampling, guides, {}, {}};  // kept on the host when guided
  if (guided) {
    guidedRows.histories.resize(static_cast<std::size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) guidedRows.alive.push_back(r);
  }
  const int64_t checkEvery = guided ? 1 : stepsBetweenChecks(options.stepsBetweenChecks, device.is_cpu());
  at::Tensor ended;  // [alive] rows that ended since the last look, running on masked (checkEvery > 1)
  for (int64_t t = 0; t < longest; ++t) {
    auto step = model->decodeStep(previous, state, memory, slice, sharedMemory ? alive : torch::Tensor());
    auto [best, next] = guided ? guidedStep(step.logits, slice, rowMasks, guidedRows, t)
                               : greedyStep(step.logits, slice, rowMasks, scored);
    if (guided) {
      const auto chosen = next.to(torch::kCPU).contiguous();
      const int64_t* id = chosen.data_ptr<int64_t>();
      for (std::size_t i = 0; i < guidedRows.alive.size(); ++i)
        guidedRows.histories[static_cast<std::size_t>(guidedRows.alive[i])].push_back(static_cast<int>(id[i]));
    }
    if (ended.defined()) {  // an ended row adds nothing more: <pad> pieces, no score
      next = next.masked_fill(ended, SpecialIds::kPad);
      if (scored) best = best.masked_fill(ended, 0);
    }
    if (scored) scores.index_add_(0, alive, best.to(torch::kFloat64));
    tokens.push_back(torch::full({rows}, SpecialIds::kPad, longOptions).index_copy_(0, alive, next));
    if (keepAttention)
      attention.push_back(torch::zeros({rows, step.attention.size(1)}, step.attention.options())
                              .index_copy_(0, alive, step.attention));
    auto going = next.ne(SpecialIds::kEos) & aliveLimits.gt(t + 1);
    if (ended.defined()) going = going & ended.logical_not();
    if ((t + 1) % checkEvery != 0 && t + 1 < longest) {  // no look at this step: the device runs on
      ended = going.logical_not();
      state = step.state;
      previous = next;
      continue;
    }
    ended = at::Tensor();
    const auto stillAlive = going.sum().item<int64_t>();
    if (stillAlive == 0) break;
    state = step.state;
    previous = next;
    if (stillAlive < alive.size(0)) {
      const auto goes = going.cpu();
      const std::vector<bool> goesOn(goes.data_ptr<bool>(), goes.data_ptr<bool>() + goes.numel());
      const auto order = holesFilledFromTheEnd(goesOn);
      const std::vector<int64_t> rowsKept(order.begin(), order.end());
      if (guided) {
        std::vector<int64_t> kept;
        for (int64_t i : rowsKept) kept.push_back(guidedRows.alive[static_cast<std::size_t>(i)]);
        guidedRows.alive = std::move(kept);
      }
      const auto keep = onDevice(rowsKept, device);
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
