#include "decode/ContinuousGreedySearch.h"

#include "data/Batch.h"
#include "decode/GreedyPick.h"
#include "tokenization/SpecialIds.h"
#include "util/DeviceCopy.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace nmt {
ContinuousGreedySearch::ContinuousGreedySearch(Seq2Seq& model, DecodeLimits limits, std::size_t capacity,
                                               const Shortlist* shortlist, bool scores, int64_t stepsBetweenChecksAsked,
                                               Shape shape)
    : model_(model),
      limits_(limits),
      device_(model->device()),
      capacity_(std::max<std::size_t>(capacity, 1)),
      shortlist_(shortlist),
      scores_(scores),
      stepsBetweenChecks_(stepsBetweenChecks(stepsBetweenChecksAsked, device_.is_cpu())),
      fixed_(shape == Shape::kFixed || shape == Shape::kFixedReplayed || (shape == Shape::kAutomatic && !device_.is_cpu())),
      replayed_(shape == Shape::kFixedReplayed) {}

namespace {

int64_t roundedUp(int64_t length) {
  const int64_t step = ContinuousGreedySearch::kLengthStep;
  return (length + step - 1) / step * step;
}

}  // namespace

std::size_t ContinuousGreedySearch::live() const {
  if (!fixed_) return rows_.size();
  return static_cast<std::size_t>(std::count_if(rows_.begin(), rows_.end(), [](const Row& row) { return !row.free; }));
}

std::size_t ContinuousGreedySearch::waiting() const {
  std::size_t n = 0;
  for (const auto& g : waiting_) n += g.rows.size();
  return n;
}

ContinuousGreedySearch::Group ContinuousGreedySearch::encode(Seq2Seq& model, DecodeLimits limits,
                                                            const std::vector<std::vector<int>>& sources,
                                                            const std::vector<std::size_t>& tags,
                                                            const std::vector<bool>& keepAttention,
                                                            const Shortlist* shortlist) {
  Group group;
  if (sources.empty()) return group;
  std::vector<std::size_t> order(sources.size());
  std::iota(order.begin(), order.end(), 0);
  const Batch batch = makeSourceBatch(sources, order, model->device());  // rows by decreasing length
  const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  group.memory = model->prepareDecoder(encoded);
  group.initial = model->initialDecoderState(encoded);
  const auto lengths = batch.sourceLengths.cpu();
  for (std::size_t r = 0; r < batch.examples.size(); ++r) {
    const std::size_t i = batch.examples[r];
    const int64_t sourceLength = lengths[static_cast<int64_t>(r)].item<int64_t>();
    group.rows.push_back({tags[i], sourceLength, limits.maxLength(sourceLength), keepAttention[i], {}, {},
                          shortlist ? shortlist->targetsFor(sources[i]) : std::vector<int>()});
  }
  return group;
}

void ContinuousGreedySearch::add(Group group) {
  if (!group.rows.empty()) waiting_.push_back(std::move(group));
}

ContinuousGreedySearch::Group ContinuousGreedySearch::takeWaiting(std::size_t count) {
  std::vector<Group> parts;
  while (count > 0 && !waiting_.empty()) {
    Group& group = waiting_.front();
    const std::size_t taken = std::min(count, group.rows.size());
    const auto n = static_cast<int64_t>(taken);
    const int64_t length = group.rows.front().sourceLength;  // the group's longest first
    Group part;
    part.memory = group.memory.first(n).withSourceLength(length);
    part.initial = group.initial.first(n);
    for (std::size_t r = 0; r < taken; ++r) {
      part.rows.push_back(std::move(group.rows.front()));
      group.rows.pop_front();
    }
    group.memory = group.memory.rest(n);
    group.initial = group.initial.rest(n);
    if (group.rows.empty()) waiting_.pop_front();
    count -= taken;
    parts.push_back(std::move(part));
  }
  if (parts.empty()) return {};
  Group block = std::move(parts.front());
  for (std::size_t k = 1; k < parts.size(); ++k) block = stacked(std::move(block), std::move(parts[k]));
  return block;
}

// Rows of `b` after those of `a`, both padded to the longer source (padding is masked out of attention).
ContinuousGreedySearch::Group ContinuousGreedySearch::stacked(Group a, Group b) {
  if (a.rows.empty()) return b;
  a.memory = DecoderMemory::stacked(a.memory, b.memory);
  a.initial = DecoderState::stacked(a.initial, b.initial);
  for (auto& row : b.rows) a.rows.push_back(std::move(row));
  return a;
}

// With a shortlist, a newcomer that needs pieces the slice lacks costs a new slice (and, with
// int8, packing it again), and rows end at nearly every step: newcomers then join a running batch
// only once half of it is free (joining at once, or at a quarter or an eighth free, was slower:
// docs/performance.md, "Figures behind the code's choices").
std::size_t ContinuousGreedySearch::joinAtOnce() const {
  return shortlist_ && !rows_.empty() ? std::max<std::size_t>(1, capacity_ / 2) : 1;
}

std::vector<const std::vector<int>*> ContinuousGreedySearch::targetsOf(const std::deque<Row>& rows) {
  static const std::vector<int> nothing;  // a free slot may produce nothing
  std::vector<const std::vector<int>*> lists;
  for (const auto& row : rows) lists.push_back(row.free ? &nothing : &row.targets);
  return lists;
}

void ContinuousGreedySearch::sliceForLiveRows() {
  slice_ = batchShortlist(model_, *shortlist_, targetsOf(rows_));
  sliceStale_ = false;
}

// Rows that leave keep their pieces in the slice until a newcomer needs others: remaking it costs
// a copy of its rows (and, with int8, packing them again).
void ContinuousGreedySearch::noteJoining(const Group& block) {
  if (!shortlist_ || sliceStale_) return;
  for (const auto& row : block.rows)
    if (!std::includes(slice_.slice.ids.begin(), slice_.slice.ids.end(), row.targets.begin(), row.targets.end())) {
      sliceStale_ = true;
      return;
    }
}

void ContinuousGreedySearch::append(Group block) {
  const auto n = static_cast<int64_t>(block.rows.size());
  noteJoining(block);
  if (shortlist_ && !sliceStale_) {  // the slice holds the newcomers' pieces: their own rows of it
    const auto joining = ownPiecesMask(slice_.slice.ids, targetsOf(block.rows), device_);
    slice_.ownPieces = rows_.empty() ? joining : torch::cat({slice_.ownPieces, joining}, 0);
  }
  admit(block.rows);
  // alone, an owned copy (stacking copies anyway): rows that end are overwritten in place
  if (rows_.empty()) block.memory = block.memory.clone();
  Group running{std::move(rows_), memory_, state_};
  running = stacked(std::move(running), std::move(block));
  rows_ = std::move(running.rows);
  memory_ = running.memory;
  state_ = running.initial;
  const auto starts = torch::full({n}, int64_t{SpecialIds::kBos}, torch::TensorOptions().dtype(torch::kInt64).device(device_));
  previous_ = previous_.defined() ? torch::cat({previous_, starts}, 0) : starts;
}

void ContinuousGreedySearch::admit(std::deque<Row>& joining) {
  for (auto& row : joining) {
    keepingAttention_ += row.keepAttention ? 1 : 0;
    row.joinedAt = steps_;
  }
}

int64_t ContinuousGreedySearch::longestLimit(const std::deque<Row>& rows) {
  int64_t limit = 1;
  for (const auto& row : rows) limit = std::max(limit, row.limit);
  return limit;
}

void ContinuousGreedySearch::emptyBatch() {
  rows_.clear();
  memory_ = {};
  state_ = {};
  previous_ = at::Tensor();
}

void ContinuousGreedySearch::overwrite(const std::vector<int64_t>& slots, Group block) {
  admit(block.rows);
  const auto index = onDevice(slots, device_);
  memory_.overwrite(index, block.memory);
  state_.overwrite(index, block.initial);
  previous_.index_fill_(0, index, int64_t{SpecialIds::kBos});
  for (std::size_t k = 0; k < slots.size(); ++k) rows_[static_cast<std::size_t>(slots[k])] = std::move(block.rows[k]);
}

void ContinuousGreedySearch::start(Group block) {
  const auto count = static_cast<int64_t>(block.rows.size());
  std::vector<int64_t> rows(capacity_, 0);  // the free slots: copies of the first row
  std::iota(rows.begin(), rows.begin() + count, int64_t{0});
  const auto index = onDevice(rows, device_);
  memory_ = block.memory.select(index).withSourceLength(roundedUp(block.memory.sourceLength()));
  stateLength_ = roundedUp(longestLimit(block.rows));
  state_ = model_->decoder().withFixedLength(block.initial.select(index), stateLength_);
  previous_ = torch::full({static_cast<int64_t>(capacity_)}, int64_t{SpecialIds::kBos},
                          torch::TensorOptions().dtype(torch::kInt64).device(device_));
  admit(block.rows);
  for (auto& row : block.rows) rows_.push_back(std::move(row));
  while (rows_.size() < capacity_) {
    rows_.emplace_back();
    rows_.back().free = true;
  }
  if (shortlist_) sliceForLiveRows();
}

void ContinuousGreedySearch::fillFreeSlots() {
  std::vector<int64_t> slots;
  for (std::size_t r = 0; r < rows_.size(); ++r)
    if (rows_[r].free) slots.push_back(static_cast<int64_t>(r));
  if (slots.empty() || slots.size() < joinAtOnce()) return;
  slots.resize(std::min(slots.size(), waiting()));
  if (slots.empty()) return;
  Group block = takeWaiting(slots.size());
  if (block.memory.sourceLength() > memory_.sourceLength())
    memory_ = memory_.withSourceLength(roundedUp(block.memory.sourceLength()));
  if (longestLimit(block.rows) > stateLength_) {
    stateLength_ = roundedUp(longestLimit(block.rows));
    state_ = model_->decoder().withFixedLength(state_, stateLength_);
  }
  noteJoining(block);
  if (shortlist_ && !sliceStale_)  // the slice holds the newcomers' pieces: their own rows of it
    slice_.ownPieces.index_copy_(0, onDevice(slots, device_),
                                 ownPiecesMask(slice_.slice.ids, targetsOf(block.rows), device_));
  overwrite(slots, std::move(block));
}

void ContinuousGreedySearch::release(const std::vector<int64_t>& slots) {
  for (const int64_t slot : slots) {
    Row& row = rows_[static_cast<std::size_t>(slot)];
    row = Row{};
    row.free = true;
  }
}

// A growing state (the Transformer's caches) keeps every position since the batch's oldest row joined, those
// of rows long gone masked for the rows that joined after them: without a cut it would grow for as long as
// the batch runs. Every 16 positions, those older than the oldest row's first are cut once they are a
// quarter of them.
void ContinuousGreedySearch::forgetGonePositions() {
  const int64_t length = state_.sourceLength();  // a growing state's axis of positions
  if (length == 0 || length % 16 != 0) return;
  int64_t oldest = 0;
  for (const auto& row : rows_) oldest = std::max(oldest, steps_ - row.joinedAt);
  const int64_t unused = length - oldest;
  if (unused * 4 >= length) state_ = model_->decoder().withoutFirstPositions(state_, unused);
}

at::Tensor ContinuousGreedySearch::piecesOf(const at::Tensor& next, const at::Tensor& best) const {
  return scores_ ? torch::stack({next.to(torch::kFloat64), best.to(torch::kFloat64)}) : next.to(torch::kFloat64).unsqueeze(0);
}

namespace {

// What a captured step baked in about its buffers: each one's address, sizes and strides.
void describe(const at::Tensor& t, std::vector<int64_t>& out) {
  out.push_back(reinterpret_cast<int64_t>(t.data_ptr()));
  for (const auto n : t.sizes()) out.push_back(n);
  for (const auto n : t.strides()) out.push_back(n);
}

}  // namespace

// The step reads previous_, state_ and memory_ and writes the next pieces and state back into previous_
// and state_, its pieces into stepOut_ and its attention into stepAttention_ (kept where a row keeps it):
// buffers that stay while the batch's lengths do (the Transformer's
// caches are written in place anyway). A captured graph holds their addresses, so a new buffer (a length
// changed, an eager step replaced the state) means a new capture. It holds the model's too, which stay put
// (the weights; the positional tables, kept for the model's life).
void ContinuousGreedySearch::replayStep() {
  std::vector<int64_t> buffers;
  describe(previous_, buffers);
  for (std::size_t i = 0; i < state_.size(); ++i) describe(state_[i], buffers);
  for (std::size_t i = 0; i < memory_.size(); ++i) describe(memory_[i], buffers);
  if (!graph_ || buffers != graphBuffers_) {
    graph_.reset();
    const auto savedPrevious = previous_.clone();
    const auto savedState = state_.clone();
    stepOut_ = torch::empty({scores_ ? 2 : 1, previous_.size(0)}, previous_.options().dtype(torch::kFloat64));
    stepAttention_ = at::Tensor();
    graph_ = std::make_unique<StepGraph>(
        [this] {
          auto step = model_->decodeStep(previous_, state_, memory_, nullptr);
          auto [best, next] = greedyStep(step.logits, nullptr, at::Tensor(), scores_);
          for (std::size_t i = 0; i < state_.size(); ++i) state_[i].copy_(step.state[i]);
          previous_.copy_(next);
          stepOut_.copy_(piecesOf(next, best));
          if (!stepAttention_.defined()) stepAttention_ = torch::empty_like(step.attention);  // a warm-up, not the capture
          stepAttention_.copy_(step.attention);
        },
        device_);
    previous_.copy_(savedPrevious);  // as they were before the warm-up steps
    for (std::size_t i = 0; i < state_.size(); ++i) state_[i].copy_(savedState[i]);
    graphBuffers_ = std::move(buffers);
  }
  graph_->run();
  unseen_.push_back(stepOut_.clone());
  if (keepingAttention_ > 0) unseenAttention_.push_back(stepAttention_.clone());
}

std::vector<std::pair<std::size_t, Hypothesis>> ContinuousGreedySearch::step() {
  // room at the start, or after rows ended with nobody waiting; rows join only at a look
  if (unseen_.empty() && !waiting_.empty()) {
    if (fixed_ && rows_.empty())
      start(takeWaiting(capacity_));
    else if (fixed_)
      fillFreeSlots();
    else if (rows_.size() + joinAtOnce() <= capacity_)
      append(takeWaiting(capacity_ - rows_.size()));
  }
  std::vector<std::pair<std::size_t, Hypothesis>> ended;
  if (rows_.empty()) return ended;
  if (shortlist_ && sliceStale_) sliceForLiveRows();
  const OutputSlice* slice = shortlist_ ? &slice_.slice : nullptr;
  if (replayable()) {
    replayStep();
  } else {
    auto step = model_->decodeStep(previous_, state_, memory_, slice);
    auto [best, next] = greedyStep(step.logits, slice, shortlist_ ? slice_.ownPieces : at::Tensor(), scores_);
    unseen_.push_back(piecesOf(next, best));  // kept on the device until a look
    if (keepingAttention_ > 0) unseenAttention_.push_back(step.attention);
    state_ = step.state;
    previous_ = next;  // a row that has ended runs on until the look, which drops what it made since
  }
  ++steps_;
  if (!fixed_) forgetGonePositions();
  if (static_cast<int64_t>(unseen_.size()) < stepsBetweenChecks_) return ended;

  // a look: one transfer to the host of the steps since the last (then their attention, if kept)
  const auto stacked = [](const std::vector<at::Tensor>& steps) {  // no copy for one step
    return steps.size() == 1 ? steps[0].unsqueeze(0) : torch::stack(steps);
  };
  const auto host = stacked(unseen_).cpu();  // [steps, 1 or 2, rows]
  const auto h = host.accessor<double, 3>();
  at::Tensor weights;  // [steps, rows, width]
  if (!unseenAttention_.empty()) weights = stacked(unseenAttention_).to(torch::kCPU, torch::kFloat32).contiguous();
  const int64_t width = weights.defined() ? weights.size(2) : 0;
  const auto steps = static_cast<int64_t>(unseen_.size());
  unseen_.clear();
  unseenAttention_.clear();

  std::vector<int64_t> endedSlots;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    Row& row = rows_[r];
    if (row.free) continue;
    const auto i = static_cast<int64_t>(r);
    for (int64_t t = 0; t < steps; ++t) {
      const auto token = static_cast<int>(h[t][0][i]);
      row.hypothesis.score += scores_ ? h[t][1][i] : std::numeric_limits<double>::quiet_NaN();
      if (row.keepAttention) {
        const float* w = weights.data_ptr<float>() + (t * static_cast<int64_t>(rows_.size()) + i) * width;
        row.attention.insert(row.attention.end(), w, w + row.sourceLength);
      }
      const bool eos = token == SpecialIds::kEos;
      if (!eos) row.hypothesis.ids.push_back(token);
      const auto produced = static_cast<int64_t>(row.hypothesis.ids.size()) + (eos ? 1 : 0);
      if (eos || produced >= row.limit) {
        row.hypothesis.finished = eos;
        if (row.keepAttention) {
          const auto kept = static_cast<int64_t>(row.attention.size()) / row.sourceLength;
          row.hypothesis.attention =
              torch::from_blob(row.attention.data(), {kept, row.sourceLength}, torch::kFloat32).clone();
          --keepingAttention_;
        }
        ended.emplace_back(row.tag, std::move(row.hypothesis));
        endedSlots.push_back(i);
        break;
      }
    }
  }
  if (endedSlots.empty()) return ended;
  if (fixed_) {
    release(endedSlots);
    fillFreeSlots();
    int64_t longest = 0;
    for (const auto& row : rows_) longest = row.free ? longest : std::max(longest, row.sourceLength);
    if (longest == 0)  // nothing left to run: the next sentences start a batch of their own lengths
      emptyBatch();
    else if (roundedUp(longest) < memory_.sourceLength())
      memory_ = memory_.withSourceLength(roundedUp(longest)).contiguous();
    return ended;
  }
  // waiting rows take the ended rows' places: a copy of those rows, not of the whole batch
  const std::size_t replaced = shortlist_ ? 0 : std::min(endedSlots.size(), waiting());  // shortlist: joinAtOnce
  if (replaced > 0) overwrite({endedSlots.begin(), endedSlots.begin() + static_cast<std::ptrdiff_t>(replaced)},
                              takeWaiting(replaced));
  // the others leave the batch
  std::vector<int64_t> keep;
  std::deque<Row> going;
  std::size_t e = replaced;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    if (e < endedSlots.size() && endedSlots[e] == static_cast<int64_t>(r)) {
      ++e;
      continue;
    }
    keep.push_back(static_cast<int64_t>(r));
    going.push_back(std::move(rows_[r]));
  }
  rows_ = std::move(going);
  if (rows_.empty()) {
    emptyBatch();
    return ended;
  }
  if (keep.size() < static_cast<std::size_t>(previous_.size(0))) {
    const auto index = onDevice(keep, device_);
    state_ = state_.select(index);
    memory_ = memory_.select(index);
    previous_ = previous_.index_select(0, index);
    if (shortlist_) slice_.ownPieces = slice_.ownPieces.index_select(0, index);
  }
  // source positions beyond the longest live source are padding for every row; cutting them
  // copies the batch, so only when that saves a quarter of the attention's work
  int64_t longest = 0;
  for (const auto& row : rows_) longest = std::max(longest, row.sourceLength);
  if (longest * 4 <= memory_.sourceLength() * 3) memory_ = memory_.withSourceLength(longest).contiguous();
  return ended;
}

}  // namespace nmt
