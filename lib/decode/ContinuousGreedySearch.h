#pragma once

#include "data/Shortlist.h"
#include "decode/BatchShortlist.h"
#include "decode/DecodeLimits.h"
#include "decode/DecodingOptions.h"
#include "decode/Hypothesis.h"
#include "model/OutputSlice.h"
#include "model/Seq2Seq.h"
#include "util/StepGraph.h"

#include <cstddef>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

namespace nmt {

// Greedy search whose batch stays full: sentences are encoded in groups ahead of time and join
// the running batch between steps as others end. A batch decoded start to end runs its last
// steps with ever fewer rows, and on a CPU such a step costs nearly what a full one does (the
// weights are read either way); here most steps run near `capacity` rows. Each sentence gets
// what greedySearch gives it alone, to float rounding (rows of different ages stack in every
// decoder's state). Call under inference mode.
class ContinuousGreedySearch {
 public:
  // How the running tensors follow the rows. Shrinking (a CPU's): rows that end leave the batch (a
  // copy of the rows that stay), the memory is cut to the longest live source. Fixed (a GPU's): the
  // batch keeps `capacity` rows; a row that ends leaves a free slot that runs on unread until a
  // newcomer takes it; the memory's source axis and the Transformer's caches are padded to multiples
  // of kLengthStep (its caches at a fixed length: Decoder::withFixedLength). A step's shapes then
  // change only when those lengths do, as a CUDA graph needs, and a GPU copies no rows that stay
  // (a free slot's step costs it next to nothing). Automatic: fixed on a GPU, shrinking on a CPU.
  // FixedReplayed: fixed, and each step (without a shortlist) replayed from a CUDA graph of it on the
  // running buffers (StepGraph), captured anew when a length changes; elsewhere the same steps on the
  // same buffers. Not automatic yet: not measured on a GPU (issue #60).
  enum class Shape { kAutomatic, kShrinking, kFixed, kFixedReplayed };
  static constexpr int64_t kLengthStep = 16;

  struct Row {
    std::size_t tag;
    int64_t sourceLength;  // with </s>
    int64_t limit;         // most pieces it may produce
    bool keepAttention;
    Hypothesis hypothesis;
    std::vector<float> attention;  // steps x sourceLength, row-major
    std::vector<int> targets;      // with a shortlist: the pieces it may produce
    bool free = false;             // a fixed-shape batch's slot that no sentence holds
    int64_t joinedAt = 0;          // the search's steps when it joined (a growing state's positions of it: those since)
  };
  // Sentences encoded together, waiting to join: rows with their encoder memory and initial
  // decoder state, row-aligned.
  struct Group {
    std::deque<Row> rows;
    DecoderMemory memory;
    DecoderState initial;
  };

  // With a shortlist, each step computes
  // the union of the live rows' lists (Shortlist::batchList) and each row chooses among its own
  // list's pieces. Without scores each
  // Hypothesis::score is NaN (greedyPick skips the softmax's normaliser).
  // stepsBetweenChecks: steps between the looks at the rows' pieces on the host (each a wait for the device
  // on a GPU), where rows end and join; a row that ends between looks runs on until the next, which drops
  // what it made since. 0: automatic (stepsBetweenChecks, DecodingOptions.h). The same pieces either way
  // (to float rounding).
  ContinuousGreedySearch(Seq2Seq& model, DecodeLimits limits, std::size_t capacity, const Shortlist* shortlist = nullptr,
                         bool scores = true, int64_t stepsBetweenChecks = 0, Shape shape = Shape::kAutomatic);

  // Encodes the sources (non-empty id lists, without </s>) as one batch, to be added to a running
  // batch of this model; reads only the model, so it may run on another thread than the one that
  // steps. Each is known by its tag; keepAttention[i]: fill that row's Hypothesis::attention.
  static Group encode(Seq2Seq& model, DecodeLimits limits, const std::vector<std::vector<int>>& sources,
                      const std::vector<std::size_t>& tags, const std::vector<bool>& keepAttention,
                      const Shortlist* shortlist = nullptr);
  // The group waits for room in the running batch.
  void add(Group group);
  void add(const std::vector<std::vector<int>>& sources, const std::vector<std::size_t>& tags,
           const std::vector<bool>& keepAttention) {
    add(encode(model_, limits_, sources, tags, keepAttention, shortlist_));
  }
  std::size_t live() const;  // rows that hold a sentence
  std::size_t waiting() const;
  bool fixedShape() const { return fixed_; }
  int64_t batchRows() const { return previous_.defined() ? previous_.size(0) : 0; }  // free slots included
  // The positions the decoder state keeps a row (the Transformer's caches; 0 where it keeps none).
  int64_t statePositions() const { return state_.sourceLength(); }
  // Lets waiting rows join while the running batch has room, then one decoder step over every
  // live row (and a fixed batch's free slots); waiting rows take the places of rows that ended (a
  // copy of those rows only).
  // Returns the rows that ended (</s> or their length limit) with their tags, at a look (none between).
  // A kept Hypothesis::attention is [pieces (+ </s>), source length].
  std::vector<std::pair<std::size_t, Hypothesis>> step();

 private:
  Group takeWaiting(std::size_t count);  // the next `count` waiting rows, oldest group first
  static Group stacked(Group a, Group b);
  void append(Group block);                                         // after the running rows
  void overwrite(const std::vector<int64_t>& slots, Group block);  // in place of ended rows
  void admit(std::deque<Row>& joining);  // rows about to join: counted, their joining step noted
  static int64_t longestLimit(const std::deque<Row>& rows);  // at least 1
  void emptyBatch();        // nothing runs: the next rows start a batch of their own
  void start(Group block);  // a fixed-shape batch's first rows, the rest free slots
  void fillFreeSlots();     // a fixed-shape batch's free slots taken by waiting rows, as many as wait
  void release(const std::vector<int64_t>& slots);  // a fixed-shape batch's ended rows become free slots
  void forgetGonePositions();  // a shrinking batch's: the state's positions older than its oldest row's first
  bool replayable() const { return replayed_ && !shortlist_; }
  void replayStep();  // one step replayed (captured first where the buffers changed); its pieces in unseen_
  at::Tensor piecesOf(const at::Tensor& next, const at::Tensor& best) const;  // [1 or 2, rows] float64
  void sliceForLiveRows();  // with a shortlist, once a joining row needs pieces the slice lacks
  void noteJoining(const Group& block);
  static std::vector<const std::vector<int>*> targetsOf(const std::deque<Row>& rows);
  std::size_t joinAtOnce() const;  // the free rows newcomers wait for before they join

  Seq2Seq& model_;
  DecodeLimits limits_;
  c10::Device device_;
  std::size_t capacity_;
  const Shortlist* shortlist_;
  bool scores_;
  int64_t stepsBetweenChecks_;
  bool fixed_;
  bool replayed_;
  std::vector<at::Tensor> unseen_;           // the steps since the last look: [1 or 2, live] tokens (and scores)
  std::vector<at::Tensor> unseenAttention_;  // and their attention [live, source length], if any row keeps it
  BatchShortlist slice_;       // with a shortlist: at least the live rows' pieces; ownPieces a row per live row
  bool sliceStale_ = false;    // a row joined whose pieces slice_ lacks
  std::deque<Group> waiting_;  // encoded groups that have not joined yet, each longest source first
  std::deque<Row> rows_;       // in the order of the running tensors' batch dimension (free slots too)
  std::size_t keepingAttention_ = 0;  // live rows that keep attention
  DecoderMemory memory_;
  DecoderState state_;
  int64_t steps_ = 0;  // decoder steps taken
  int64_t stateLength_ = 0;  // fixed shape: the positions a row the state has room for (Decoder::withFixedLength)
  at::Tensor previous_;  // [live] the last token of each row
  std::unique_ptr<StepGraph> graph_;  // replayed: the step on these buffers
  std::vector<int64_t> graphBuffers_;  // their addresses, sizes and strides when it was captured
  at::Tensor stepOut_;                 // replayed: the step's piecesOf
  at::Tensor stepAttention_;           // and its attention [rows, source length]
};

}  // namespace nmt
