#include "decode/ContinuousGreedySearch.h"

#include "data/Batch.h"
#include "tokenization/SpecialIds.h"
#include "util/InputError.h"

#include <limits>
#include <numeric>

namespace nmt {
namespace {

// Pads dimension 1 (source positions) of a [B, S, ...] tensor to `length` with `value`.
at::Tensor padSource(const at::Tensor& t, int64_t length, double value) {
  if (t.size(1) == length) return t;
  auto shape = t.sizes().vec();
  shape[1] = length - t.size(1);
  return torch::cat({t, torch::full(shape, value, t.options())}, 1);
}

at::Tensor catRows(const at::Tensor& a, const at::Tensor& b, int64_t dim) {
  if (!b.defined()) return a;
  return a.defined() ? torch::cat({a, b}, dim) : b;
}

// The first `count` rows (dimension `dim`), or the rest after them.
at::Tensor firstRows(const at::Tensor& t, int64_t dim, int64_t count) {
  return t.defined() ? t.narrow(dim, 0, count) : t;
}
at::Tensor restRows(const at::Tensor& t, int64_t dim, int64_t count) {
  return t.defined() ? t.narrow(dim, count, t.size(dim) - count) : t;
}

}  // namespace

ContinuousGreedySearch::ContinuousGreedySearch(Seq2Seq& model, DecodeLimits limits, c10::Device device,
                                               std::size_t capacity)
    : model_(model), limits_(limits), device_(device), capacity_(std::max<std::size_t>(capacity, 1)) {
  if (model_->config().decoder != "rnn")
    throw InputError("continuous batching needs the RNN decoder (this model's decoder is " + model_->config().decoder +
                     ")");
}

std::size_t ContinuousGreedySearch::waiting() const {
  std::size_t n = 0;
  for (const auto& g : waiting_) n += g.rows.size();
  return n;
}

void ContinuousGreedySearch::add(const std::vector<EncodedPair>& sources, const std::vector<std::size_t>& tags,
                                 const std::vector<bool>& keepAttention) {
  if (sources.empty()) return;
  std::vector<std::size_t> order(sources.size());
  std::iota(order.begin(), order.end(), 0);
  const Batch batch = makeBatch(sources, order, device_);  // rows by decreasing length
  const auto encoded = model_->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  Group group;
  group.memory = model_->prepareDecoder(encoded);
  group.initial = model_->initialDecoderState(encoded).recurrent;
  const auto lengths = batch.sourceLengths.cpu();
  for (std::size_t r = 0; r < batch.examples.size(); ++r) {
    const std::size_t i = batch.examples[r];
    const int64_t sourceLength = lengths[static_cast<int64_t>(r)].item<int64_t>();
    group.rows.push_back({tags[i], sourceLength, limits_.maxLength(sourceLength), keepAttention[i], {}, {}});
  }
  waiting_.push_back(std::move(group));
}

void ContinuousGreedySearch::join(Group& group, std::size_t count) {
  const auto n = static_cast<int64_t>(count);
  const int64_t freshLength = group.rows.front().sourceLength;  // the group's longest first
  const DecoderMemory fresh{firstRows(group.memory.values, 0, n).narrow(1, 0, freshLength),
                            firstRows(group.memory.projectedKeys, 0, n).narrow(1, 0, freshLength),
                            firstRows(group.memory.mask, 0, n).narrow(1, 0, freshLength), {}, {}};
  // both sides padded to the longer source; padded positions are masked out of attention
  const int64_t length = std::max(freshLength, memory_.values.defined() ? memory_.values.size(1) : 0);
  const auto joined = [&](const at::Tensor& running, const at::Tensor& added) {
    return running.defined() ? torch::cat({padSource(running, length, 0.0), padSource(added, length, 0.0)}, 0) : added;
  };
  memory_ = {joined(memory_.values, fresh.values), joined(memory_.projectedKeys, fresh.projectedKeys),
             joined(memory_.mask, fresh.mask), {}, {}};
  state_.recurrent.h = catRows(state_.recurrent.h, firstRows(group.initial.h, 1, n), 1);  // [layers, B, H]
  state_.recurrent.c = catRows(state_.recurrent.c, firstRows(group.initial.c, 1, n), 1);
  previous_ = catRows(previous_,
                      torch::full({n}, int64_t{SpecialIds::kBos}, torch::TensorOptions().dtype(torch::kInt64).device(device_)),
                      0);
  for (std::size_t r = 0; r < count; ++r) {
    keepingAttention_ += group.rows.front().keepAttention ? 1 : 0;
    rows_.push_back(std::move(group.rows.front()));
    group.rows.pop_front();
  }
  group.memory = {restRows(group.memory.values, 0, n), restRows(group.memory.projectedKeys, 0, n),
                  restRows(group.memory.mask, 0, n), {}, {}};
  group.initial.h = restRows(group.initial.h, 1, n);
  group.initial.c = restRows(group.initial.c, 1, n);
}

std::vector<std::pair<std::size_t, Hypothesis>> ContinuousGreedySearch::step() {
  // joining copies the running batch's tensors, but a step with a free row costs nearly what a
  // full one does: rows join whenever there is room
  for (std::size_t free = capacity_ - std::min(capacity_, rows_.size()); free > 0 && !waiting_.empty();) {
    const std::size_t count = std::min(free, waiting_.front().rows.size());
    join(waiting_.front(), count);
    free -= count;
    if (waiting_.front().rows.empty()) waiting_.pop_front();
  }
  std::vector<std::pair<std::size_t, Hypothesis>> ended;
  if (rows_.empty()) return ended;
  auto step = model_->decodeStep(previous_, state_, memory_);
  // never <pad> or <s>, as in greedySearch
  const auto banned = torch::tensor({int64_t{SpecialIds::kPad}, int64_t{SpecialIds::kBos}},
                                    torch::TensorOptions().dtype(torch::kInt64).device(device_));
  step.logProbs.index_fill_(1, banned, -std::numeric_limits<float>::infinity());
  auto [best, next] = step.logProbs.max(-1);
  // one transfer to the host: each row's log-probability and token (then attention, if kept)
  const auto host = torch::stack({best.to(torch::kFloat64), next.to(torch::kFloat64)}).cpu();
  const auto h = host.accessor<double, 2>();
  at::Tensor weights;
  if (keepingAttention_ > 0) weights = step.attention.to(torch::kCPU, torch::kFloat32).contiguous();
  const int64_t width = weights.defined() ? weights.size(1) : 0;

  std::vector<int64_t> keep;
  std::vector<Row> going;
  int64_t longest = 0;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    Row& row = rows_[r];
    const auto token = static_cast<int>(h[1][static_cast<int64_t>(r)]);
    row.hypothesis.score += h[0][static_cast<int64_t>(r)];
    if (row.keepAttention) {
      const float* w = weights.data_ptr<float>() + static_cast<int64_t>(r) * width;
      row.attention.insert(row.attention.end(), w, w + row.sourceLength);
    }
    const bool eos = token == SpecialIds::kEos;
    if (!eos) row.hypothesis.tokens.push_back(token);
    const auto produced = static_cast<int64_t>(row.hypothesis.tokens.size()) + (eos ? 1 : 0);
    if (eos || produced >= row.limit) {
      row.hypothesis.finished = eos;
      if (row.keepAttention) {
        const auto steps = static_cast<int64_t>(row.attention.size()) / row.sourceLength;
        row.hypothesis.attention =
            torch::from_blob(row.attention.data(), {steps, row.sourceLength}, torch::kFloat32).clone();
        --keepingAttention_;
      }
      ended.emplace_back(row.tag, std::move(row.hypothesis));
    } else {
      keep.push_back(static_cast<int64_t>(r));
      longest = std::max(longest, row.sourceLength);
      going.push_back(std::move(row));
    }
  }
  rows_ = std::move(going);
  if (rows_.empty()) {
    memory_ = {};
    state_ = {};
    previous_ = at::Tensor();
    return ended;
  }
  state_ = step.state;
  previous_ = next;
  if (keep.size() < static_cast<std::size_t>(next.size(0))) {
    const auto index = torch::tensor(keep, torch::kInt64).to(device_);
    state_ = selectRows(state_, index);
    memory_ = selectRows(memory_, index);
    previous_ = previous_.index_select(0, index);
    // source positions beyond the longest remaining source are padding for every row
    if (longest < memory_.values.size(1))
      memory_ = {memory_.values.narrow(1, 0, longest).contiguous(),
                 memory_.projectedKeys.narrow(1, 0, longest).contiguous(),
                 memory_.mask.narrow(1, 0, longest).contiguous(), {}, {}};
  }
  return ended;
}

}  // namespace nmt
