#include "decode/BeamSearch.h"

#include "decode/GreedyPick.h"

#include "decode/Constraints.h"
#include "decode/RowOperations.h"
#include "decode/RowTopK.h"
#include "decode/Sampler.h"
#include "decode/StepColumns.h"
#include "decode/StepRules.h"
#include "decode/rules/ProducibleRule.h"
#include "tokenization/SpecialIds.h"
#include "util/DeviceCopy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <unordered_map>

namespace nmt {
namespace {

// One sentence's search: its live beams and its endings.
struct SentenceSearch {
  int64_t limit = 0;
  int64_t sourceLength = 0;                     // with </s>
  std::vector<std::vector<int>> histories{{}};  // live beams' tokens; empty once the search is over
  std::vector<double> scores{0.0};
  std::vector<std::vector<float>> attention{{}};  // live beams' attention, a row per step (when kept)
  std::vector<Hypothesis> finished;  // endings, each with the rank beam search orders them by
};

// A beam's attention rows with this step's appended, as a hypothesis keeps them.
std::vector<float> withStep(const std::vector<float>& rows, const float* step, int64_t sourceLength) {
  auto out = rows;
  if (step) out.insert(out.end(), step, step + sourceLength);
  return out;
}

at::Tensor attentionOf(std::vector<float> rows, int64_t sourceLength) {
  const auto steps = static_cast<int64_t>(rows.size()) / sourceLength;
  return torch::from_blob(rows.data(), {steps, sourceLength}, torch::kFloat32).clone();
}

// What one step gives all sentences alike.
struct StepContext {
  int64_t V;      // columns of a row's log-probabilities (the slice's, with a shortlist)
  int64_t K;      // beam size
  int64_t t;      // the step, from 0
  double alpha;   // length penalty
  StepColumns columns;  // the pieces the columns stand for
};

// One sentence's view of a step: its C candidates, best first (`indices` over its K beam slots:
// beam = index / V, column = index % V), and its beams' attention rows (null when not kept).
struct SentenceStep {
  const double* scores;
  const int64_t* indices;
  int64_t C;
  const float* attention;  // row b: beam b's attention at this step
  int64_t attentionWidth;
};

// A hypothesis that ends at this step: its pieces, score, attention (with this step's row) and rank.
Hypothesis ending(const SentenceSearch& search, std::vector<int> ids, int64_t beam, double score, bool eos,
                  const float* row, double alpha) {
  const std::size_t length = ids.size() + (eos ? 1 : 0);
  Hypothesis h;
  h.ids = std::move(ids);
  h.score = score;
  h.finished = eos;
  h.normalizedScore = normalizedScore(score, length, alpha);
  if (row) h.attention = attentionOf(withStep(search.attention[beam], row, search.sourceLength), search.sourceLength);
  return h;
}

// Takes one step of one sentence's search from its candidates: endings are kept, up to K beams
// live on, and none do once the search is over. Returns each live beam's parent among the previous beams.
std::vector<int64_t> extendSearch(SentenceSearch& search, const SentenceStep& step, const StepContext& context) {
  const int64_t K = context.K, V = context.V;
  std::vector<std::vector<int>> nextHistories;
  std::vector<std::vector<float>> nextAttention;
  std::vector<double> nextScores;
  std::vector<int64_t> parents;
  const bool lastStep = context.t + 1 == search.limit;
  for (int64_t c = 0; c < step.C && static_cast<int64_t>(nextHistories.size()) < K; ++c) {
    const double score = step.scores[c];
    if (!std::isfinite(score)) break;
    const int64_t beam = step.indices[c] / V;
    const int64_t token = context.columns.piece(step.indices[c] % V);
    const std::vector<int>& parent = search.histories[beam];
    const float* row = step.attention ? step.attention + beam * step.attentionWidth : nullptr;
    if (token == SpecialIds::kEos) {
      if (c >= K) continue;  // an ending counts only among the K best candidates (as fairseq)
      search.finished.push_back(ending(search, parent, beam, score, true, row, context.alpha));
      continue;
    }
    auto history = parent;
    history.push_back(static_cast<int>(token));
    if (lastStep) {  // cut at the limit: ends here unfinished
      search.finished.push_back(ending(search, std::move(history), beam, score, false, row, context.alpha));
      continue;
    }
    nextHistories.push_back(std::move(history));
    if (row) nextAttention.push_back(withStep(search.attention[beam], row, search.sourceLength));
    nextScores.push_back(score);
    parents.push_back(beam);
  }
  if (static_cast<int64_t>(search.finished.size()) >= K && !nextScores.empty()) {
    // stop when no live beam can still beat the K-th best ending: log-probabilities only
    // fall, so with alpha 0 this is exact; with alpha > 0 it judges at the next length
    std::nth_element(search.finished.begin(), search.finished.begin() + (K - 1), search.finished.end(),
                     [](const Hypothesis& x, const Hypothesis& y) { return x.normalizedScore > y.normalizedScore; });
    const double bestLive = *std::max_element(nextScores.begin(), nextScores.end());
    if (normalizedScore(bestLive, static_cast<std::size_t>(context.t) + 2, context.alpha) <= search.finished[K - 1].normalizedScore) {
      nextHistories.clear();
      nextScores.clear();
      nextAttention.clear();
      parents.clear();
    }
  }
  search.histories = std::move(nextHistories);
  search.attention = std::move(nextAttention);
  search.scores = std::move(nextScores);
  return parents;
}

// When as many beams live on as before, each beam's first surviving child takes its parent's slot and
// the others take the free slots in order: the state's rows then move only where a beam's line ended
// (DecoderState::reordered copies no others). The order of a sentence's beams decides nothing else
// but which of two exactly equal candidates comes first.
void keepLinesInPlace(SentenceSearch& search, std::vector<int64_t>& parents, std::size_t beamsBefore) {
  const std::size_t n = parents.size();
  if (n != beamsBefore || n < 2) return;
  std::vector<std::size_t> slotOf(n, n);
  std::vector<bool> taken(n, false);
  for (std::size_t c = 0; c < n; ++c) {
    const auto parent = static_cast<std::size_t>(parents[c]);
    if (!taken[parent]) slotOf[c] = parent, taken[parent] = true;
  }
  for (std::size_t c = 0, free = 0; c < n; ++c) {
    if (slotOf[c] < n) continue;
    while (taken[free]) ++free;
    slotOf[c] = free, taken[free] = true;
  }
  auto placed = [&](auto& items) {
    if (items.empty()) return;  // attention rows when none are kept
    std::remove_reference_t<decltype(items)> out(n);
    for (std::size_t c = 0; c < n; ++c) out[slotOf[c]] = std::move(items[c]);
    items = std::move(out);
  };
  placed(search.histories);
  placed(search.scores);
  placed(search.attention);
  placed(parents);
}

// For each new row's sentence, a row of the old layout that holds it (the same row where it can).
std::vector<int64_t> rowsHolding(const std::vector<int64_t>& oldSentences, const std::vector<int64_t>& newSentences) {
  std::unordered_map<int64_t, int64_t> rowOf;
  for (std::size_t i = 0; i < oldSentences.size(); ++i) rowOf.emplace(oldSentences[i], static_cast<int64_t>(i));
  std::vector<int64_t> rows(newSentences.size());
  for (std::size_t i = 0; i < newSentences.size(); ++i)
    rows[i] = i < oldSentences.size() && oldSentences[i] == newSentences[i] ? static_cast<int64_t>(i)
                                                                             : rowOf.at(newSentences[i]);
  return rows;
}

// The live rows at a step, sentence by sentence: each live sentence's beams go into K slots of its own.
struct StepRows {
  std::vector<int64_t> last;    // each row's last piece (<s> at first)
  std::vector<int64_t> slot;    // each row's slot: its sentence's place among the active ones * K + its beam
  std::vector<double> scores;   // each row's beam score
  std::vector<int64_t> active;  // sentences with live beams, in row order
};

StepRows stepRows(const std::vector<SentenceSearch>& searches, const std::vector<int64_t>& rowSentence, int64_t K) {
  StepRows rows;
  for (std::size_t i = 0; i < rowSentence.size();) {
    const int64_t s = rowSentence[i];
    const auto& search = searches[static_cast<std::size_t>(s)];
    for (std::size_t b = 0; b < search.histories.size(); ++b, ++i) {
      rows.last.push_back(search.histories[b].empty() ? SpecialIds::kBos : search.histories[b].back());
      rows.slot.push_back(static_cast<int64_t>(rows.active.size()) * K + static_cast<int64_t>(b));
      rows.scores.push_back(search.scores[b]);
    }
    rows.active.push_back(s);
  }
  return rows;
}

// Each active sentence's 2K best candidates over its beams, on the CPU: scores [A, C] float64 and
// indices over its K beam slots (beam * V + column) [A, C] int64.
std::pair<at::Tensor, at::Tensor> bestCandidates(const at::Tensor& logProbs, const StepRows& rows, int64_t K) {
  const auto device = logProbs.device();
  const int64_t V = logProbs.size(1);
  const auto A = static_cast<int64_t>(rows.active.size());
  // A sentence's 2K best candidates over its K beams are among each beam's own 2K best: those are
  // taken from the float32 row (adding the beam's score keeps a row's order: the float64 sums are
  // exact), so that only [rows, 2K] becomes float64 and is searched per sentence, not [rows, V].
  const int64_t perRow = std::min<int64_t>(2 * K, V);
  const auto [rowBest, rowTokens] = rowTopK(logProbs, perRow);
  const auto slotOfRow = onDevice(rows.slot, device);
  const auto total = rowBest.to(torch::kFloat64) + onDevice(rows.scores, device).unsqueeze(1);
  const auto inSlot = rowTokens + (slotOfRow.remainder(K) * V).unsqueeze(1);  // index over the K beams: beam * V + token
  auto slots = total;  // already in slot order when every active sentence has K beams
  auto slotIndices = inSlot;
  if (logProbs.size(0) != A * K) {
    slots = torch::full({A * K, perRow}, -std::numeric_limits<double>::infinity(),
                        torch::TensorOptions().dtype(torch::kFloat64).device(device))
                .index_copy_(0, slotOfRow, total);
    slotIndices = torch::zeros({A * K, perRow}, torch::TensorOptions().dtype(torch::kInt64).device(device))
                      .index_copy_(0, slotOfRow, inSlot);
  }
  const auto [topScores, topPlaces] = slots.view({A, K * perRow}).topk(std::min<int64_t>(2 * K, K * V), 1);
  const auto topIndices = slotIndices.view({A, K * perRow}).gather(1, topPlaces);
  return {topScores.cpu().contiguous(), topIndices.cpu().contiguous()};  // rows read through raw pointers
}

// Sampling with beam search: each active sentence's 2K candidates drawn from its beams (sampleCandidates),
// in the order drawn, as bestCandidates lays them out (a sentence with fewer: -inf after them).
std::pair<at::Tensor, at::Tensor> sampledCandidates(const at::Tensor& logProbs, const StepRows& rows, int64_t K,
                                                    const Sampling& sampling, const StepColumns& columns,
                                                    const std::vector<SentenceGuide>* guides, int64_t t) {
  const auto cpu = logProbs.to(torch::kCPU, torch::kFloat64).contiguous();
  const int64_t V = cpu.size(1), C = 2 * K;
  const auto A = static_cast<int64_t>(rows.active.size());
  auto scores = torch::full({A, C}, -std::numeric_limits<double>::infinity(), torch::kFloat64);
  auto indices = torch::zeros({A, C}, torch::kInt64);
  for (int64_t a = 0, row = 0; a < A; ++a) {
    const auto sentence = static_cast<std::size_t>(rows.active[a]);
    std::vector<double> beamScores;  // a sentence's rows are its beams in order
    const int64_t first = row;
    for (; row < static_cast<int64_t>(rows.slot.size()) && rows.slot[row] / K == a; ++row)
      beamScores.push_back(rows.scores[row]);
    const auto drawn = sampleCandidates(cpu.data_ptr<double>() + first * V, beamScores, V, columns, sampling,
                                        guides ? (*guides)[sentence].stream : sentence, static_cast<uint64_t>(t),
                                        static_cast<std::size_t>(C));
    for (std::size_t c = 0; c < drawn.size(); ++c) {
      scores[a][static_cast<int64_t>(c)] = drawn[c].score;
      indices[a][static_cast<int64_t>(c)] = drawn[c].index;
    }
  }
  return {scores, indices};
}

// A constrained sentence's candidates at a step, in the order dynamic beam allocation takes them
// (allocateBanks): its best candidates and, from each beam, the pieces that further a constraint, each
// in the bank of the constraint pieces it meets. scores/indices as bestCandidates gives them.
struct BankedStep {
  std::vector<double> scores;
  std::vector<int64_t> indices;
};
BankedStep bankedCandidates(const SentenceSearch& search, const std::vector<std::vector<int>>& constraints,
                            const double* topScores, const int64_t* topIndices, int64_t C,
                            const std::vector<std::pair<int64_t, double>>& furthering,  // (index, score) per beam's pieces
                            const StepContext& context) {
  std::vector<std::pair<int64_t, double>> pool;
  for (int64_t c = 0; c < C; ++c) pool.emplace_back(topIndices[c], topScores[c]);
  pool.insert(pool.end(), furthering.begin(), furthering.end());
  std::vector<BankedCandidate> banked;
  BankedStep out;
  std::vector<int64_t> seen;
  for (const auto& [index, score] : pool) {
    if (!std::isfinite(score) || std::find(seen.begin(), seen.end(), index) != seen.end()) continue;
    seen.push_back(index);
    const int64_t beam = index / context.V;
    const int64_t column = index % context.V;
    const int token = context.columns.piece(column);
    auto history = search.histories[static_cast<std::size_t>(beam)];
    if (token != SpecialIds::kEos) history.push_back(token);
    banked.push_back({constraintProgress(history, constraints).metPieces, score});
    out.scores.push_back(score);
    out.indices.push_back(index);
  }
  BankedStep ordered;
  for (std::size_t i : allocateBanks(banked, static_cast<std::size_t>(context.K))) {
    ordered.scores.push_back(out.scores[i]);
    ordered.indices.push_back(out.indices[i]);
  }
  return ordered;
}

// For each active sentence with constraints, from each of its beams, the pieces that would further a
// constraint (constraintProgress) and its own K best as candidates (a beam ahead on constraints keeps
// its children even where the sentence's best are all another beam's): (beam * V + column, beam score +
// log-probability), read from the step's log-probabilities in one gather. Empty for the others.
std::vector<std::vector<std::pair<int64_t, double>>> furtheringCandidates(const at::Tensor& logProbs,
                                                                        const StepRows& rows,
                                                                        const std::vector<SentenceSearch>& searches,
                                                                        const StepRules& rules,
                                                                        const std::vector<SentenceGuide>* guides,
                                                                        int64_t K) {
  const int64_t V = logProbs.size(1);
  std::vector<std::vector<std::pair<int64_t, double>>> out(rows.active.size());
  std::vector<int64_t> atRows, atColumns;
  std::vector<std::pair<std::size_t, int64_t>> owner;  // (active sentence, index over its beams)
  std::vector<double> beamScores;
  std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> ownRows;  // (active sentence, row, beam)
  for (std::size_t a = 0, firstRow = 0; a < rows.active.size(); ++a) {
    const auto& search = searches[static_cast<std::size_t>(rows.active[a])];
    if (rules.constrained(rows.active[a])) {
      const auto& constraints = (*guides)[static_cast<std::size_t>(rows.active[a])].constraints;
      for (std::size_t b = 0; b < search.histories.size(); ++b)
        for (int piece : constraintProgress(search.histories[b], constraints).nextPieces) {
          const int64_t column = rules.columns().column(piece);
          if (column < 0) continue;
          atRows.push_back(static_cast<int64_t>(firstRow + b));
          atColumns.push_back(column);
          owner.emplace_back(a, static_cast<int64_t>(b) * V + column);
          beamScores.push_back(search.scores[b]);
        }
      for (std::size_t b = 0; b < search.histories.size(); ++b) ownRows.emplace_back(a, firstRow + b, b);
    }
    firstRow += search.histories.size();
  }
  const auto device = logProbs.device();
  if (!ownRows.empty()) {  // each constrained beam's own best
    std::vector<int64_t> rowIndex;
    for (const auto& [a, row, b] : ownRows) rowIndex.push_back(static_cast<int64_t>(row));
    const auto [best, columns] =
        logProbs.index_select(0, onDevice(rowIndex, device)).topk(std::min<int64_t>(K, V), 1);
    const auto values = best.to(torch::kCPU, torch::kFloat64).contiguous();
    const auto places = columns.to(torch::kCPU).contiguous();
    for (std::size_t i = 0; i < ownRows.size(); ++i) {
      const auto& [a, row, b] = ownRows[i];
      const auto& search = searches[static_cast<std::size_t>(rows.active[a])];
      for (int64_t k = 0; k < values.size(1); ++k)
        out[a].emplace_back(static_cast<int64_t>(b) * V + places.data_ptr<int64_t>()[static_cast<int64_t>(i) * values.size(1) + k],
                            search.scores[b] + values.data_ptr<double>()[static_cast<int64_t>(i) * values.size(1) + k]);
    }
  }
  if (atRows.empty()) return out;
  const auto values = logProbs
                          .index({onDevice(atRows, device), onDevice(atColumns, device)})
                          .to(torch::kCPU, torch::kFloat64)
                          .contiguous();
  const double* value = values.data_ptr<double>();
  for (std::size_t i = 0; i < owner.size(); ++i) out[owner[i].first].emplace_back(owner[i].second, beamScores[i] + value[i]);
  return out;
}

// Each sentence's best `nbest` endings, best first (by rank; equal ranks in the order they ended);
// a constrained sentence's (constraints: its guide's, or null) by the constraint pieces they meet first.
std::vector<std::vector<Hypothesis>> bestEndings(std::vector<SentenceSearch>& searches, int64_t nbest,
                                                 const std::vector<SentenceGuide>* guides) {
  std::vector<std::vector<Hypothesis>> out(searches.size());
  for (std::size_t r = 0; r < searches.size(); ++r) {
    auto& finished = searches[r].finished;
    if (guides && !(*guides)[r].constraints.empty()) {
      const auto& constraints = (*guides)[r].constraints;
      std::vector<std::pair<std::size_t, Hypothesis>> keyed;
      for (auto& f : finished) keyed.emplace_back(constraintProgress(f.ids, constraints).metPieces, std::move(f));
      std::stable_sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) {
        return x.first > y.first || (x.first == y.first && x.second.normalizedScore > y.second.normalizedScore);
      });
      finished.clear();
      for (auto& [met, h] : keyed) finished.push_back(std::move(h));
    } else {
      std::stable_sort(finished.begin(), finished.end(),
                       [](const Hypothesis& x, const Hypothesis& y) { return x.normalizedScore > y.normalizedScore; });
    }
    for (auto& f : finished) {
      if (static_cast<int64_t>(out[r].size()) >= std::max<int64_t>(1, nbest)) break;
      out[r].push_back(std::move(f));
    }
  }
  return out;
}

// The step's log-probabilities with StepRules applied, each row with its beam's history (rows are the
// live beams, sentence by sentence).
at::Tensor withRules(const at::Tensor& logProbs, const StepRules& rules, const std::vector<SentenceSearch>& searches,
                     const std::vector<int64_t>& rowSentence) {
  std::vector<const std::vector<int>*> histories;
  for (std::size_t i = 0; i < rowSentence.size();) {
    const auto& search = searches[static_cast<std::size_t>(rowSentence[i])];
    for (const auto& history : search.histories) histories.push_back(&history), ++i;
  }
  auto onCpu = logProbs.to(at::kCPU, at::kFloat).contiguous();
  rules.apply(onCpu, rowSentence, histories);
  return onCpu.to(logProbs.device(), logProbs.scalar_type());
}

}  // namespace

double normalizedScore(double score, std::size_t length, double alpha) {
  if (alpha == 0.0) return score;
  return score / std::pow((5.0 + static_cast<double>(length)) / 6.0, alpha);
}

std::vector<std::vector<Hypothesis>> beamSearch(Seq2Seq& model, const Batch& batch, const DecodingOptions& options,
                                                const BatchShortlist* shortlist,
                                                const std::vector<SentenceGuide>* guides) {
  const DecodeLimits& limits = options.limits;
  const OutputSlice* slice = shortlist ? &shortlist->slice : nullptr;
  const StepRules rules(guides, options.noRepeatNgram, slice);
  const int64_t K = std::max<int64_t>(1, options.beamSize);
  const int64_t B = batch.source.size(0);
  const auto device = batch.source.device();
  const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  const auto fullMemory = model->prepareDecoder(encoded);

  std::vector<SentenceSearch> searches(B);
  for (int64_t r = 0; r < B; ++r) {
    searches[r].sourceLength = batch.sourceLengths[r].item<int64_t>();
    searches[r].limit = rules.limitFor(r, limits.maxLength(searches[r].sourceLength), limits.extra, limits.cap);
  }

  // Live rows are the live beams of the sentences still searching, sentence by sentence.
  DecoderState state = model->initialDecoderState(encoded);  // one row per sentence at first
  std::vector<int64_t> rowSentence(B);
  for (int64_t r = 0; r < B; ++r) rowSentence[r] = r;
  // A decoder that reads shared memory rows gets the whole batch's memory and each row's sentence;
  // for another, each row gets its own copy of its sentence's memory.
  const bool sharedMemory = model->decoder().readsMemoryRowsInPlace(device);
  std::vector<int64_t> memoryRows;  // the rows `memory` was selected for
  DecoderMemory memory = sharedMemory ? fullMemory : DecoderMemory();

  for (int64_t t = 0; !rowSentence.empty(); ++t) {
    if (!sharedMemory && rowSentence != memoryRows) {  // the layout changes when beams are born or searches end
      memory = memoryRows.empty() ? fullMemory.select(onDevice(rowSentence, device))
                                  : memory.reordered(rowsHolding(memoryRows, rowSentence));
      memoryRows = rowSentence;
    }
    const StepRows rows = stepRows(searches, rowSentence, K);  // empty slots score -inf
    const auto sentenceOfRow = torch::tensor(rowSentence, torch::kInt64);
    auto step = model->decodeStep(onDevice(rows.last, device), state, memory, slice,
                                  sharedMemory ? sentenceOfRow : torch::Tensor());
    leaveOutUnproducible(step.logits,
                         shortlist ? shortlist->ownPieces.index_select(0, toDeviceWithoutWait(sentenceOfRow, device)) : torch::Tensor());
    // in place: the logits are not read again, and a [rows, V] matrix a step is not allocated and written anew;
    // with a shortlist's slice over the row's own columns only (the same scores in any batch)
    auto logProbs = step.logits.is_contiguous() && step.logits.scalar_type() == at::kFloat
                        ? (shortlist ? (logSoftmaxOverProducible(step.logits), step.logits)
                                     : at::_log_softmax_out(step.logits, step.logits, 1, false))
                        : step.logProbs();
    if (rules.any()) logProbs = withRules(logProbs, rules, searches, rowSentence);
    const auto [candidateScores, candidateIndices] =
        options.sampling.on()
            ? sampledCandidates(logProbs, rows, K, options.sampling, StepColumns(slice), guides, t)
            : bestCandidates(logProbs, rows, K);
    const auto furthering = rules.any() ? furtheringCandidates(logProbs, rows, searches, rules, guides, K)
                                        : std::vector<std::vector<std::pair<int64_t, double>>>();
    const auto weights = options.keepAttention ? step.attention.to(torch::kCPU, torch::kFloat32).contiguous()
                                               : torch::Tensor();
    const StepContext context{logProbs.size(1), K, t, options.lengthPenalty, StepColumns(slice)};
    const int64_t C = candidateScores.size(1);
    const auto A = static_cast<int64_t>(rows.active.size());
    std::vector<int64_t> firstRows(A);  // each active sentence's first row in this step
    std::vector<std::vector<int64_t>> survivors(A);
    std::vector<bool> goesOn(A);
    for (int64_t a = 0, firstRow = 0; a < A; ++a) {
      auto& search = searches[rows.active[a]];
      const auto beams = static_cast<int64_t>(search.histories.size());
      firstRows[a] = firstRow;
      SentenceStep mine{candidateScores.data_ptr<double>() + a * C, candidateIndices.data_ptr<int64_t>() + a * C, C,
                        weights.defined() ? weights.data_ptr<float>() + firstRow * weights.size(1) : nullptr,
                        weights.defined() ? weights.size(1) : 0};
      BankedStep banked;
      if (rules.constrained(rows.active[a])) {  // dynamic beam allocation over its candidates
        banked = bankedCandidates(search, (*guides)[static_cast<std::size_t>(rows.active[a])].constraints, mine.scores,
                                  mine.indices, C, furthering[static_cast<std::size_t>(a)], context);
        mine.scores = banked.scores.data();
        mine.indices = banked.indices.data();
        mine.C = static_cast<int64_t>(banked.scores.size());
      }
      survivors[a] = extendSearch(search, mine, context);
      keepLinesInPlace(search, survivors[a], static_cast<std::size_t>(beams));
      goesOn[a] = !search.histories.empty();
      firstRow += beams;
    }
    std::vector<int64_t> nextRowSentence, parents;
    for (const std::size_t a : holesFilledFromTheEnd(goesOn)) {
      for (int64_t beam : survivors[a]) parents.push_back(firstRows[a] + beam);
      nextRowSentence.insert(nextRowSentence.end(), survivors[a].size(), rows.active[a]);
    }
    rowSentence = std::move(nextRowSentence);
    if (!rowSentence.empty()) state = step.state.reordered(parents);
  }

  return bestEndings(searches, options.nbest, guides);
}

}  // namespace nmt
