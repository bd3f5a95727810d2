#pragma once

#include "decode/DecodingOptions.h"
#include "decode/DecodingPlan.h"
#include "decode/Glossary.h"
#include "decode/SentenceGuide.h"
#include "decode/Translation.h"
#include "decode/TranslationModel.h"
#include "decode/WordAlignment.h"
#include "text/TextOptions.h"
#include "util/LongCall.h"

#include <functional>
#include <memory>

#include <string>
#include <vector>

namespace nmt {

struct TranslatorOptions {
  DecodingOptions decoding;  // greedy (beamSize 1) or beam search
  // What translate() does to a line before and after the model unless it has a prefix: sentences,
  // protected spans, capitals (text/TextOptions.h; language "": the model's source language).
  text::TextOptions text;
  AlignmentOptions alignment;  // each Translation's word alignment (keeps attention)
  // Terminology (beam search): a sentence holding a source term gets its target term as a constraint;
  // dynamic beam allocation keeps hypotheses that meet more of them, and none ends before meeting all
  // (unless cut at the length limit, which grows to hold them: then the best meets the most, and
  // Translation::missingTerms names the others). Null: none.
  std::shared_ptr<const Glossary> glossary;
  // sentences per batch, sorted by length first (beam search: K rows each, and with int8 weights
  // batchSize / K sentences: sentencesPerBatch); greedy search with a decoder that takes newcomers
  // keeps one batch of this many rows running, refilled as sentences end
  std::size_t batchSize = 64;
  // batches decoded at once on a CPU, each on a thread of its own with single-threaded matrix
  // products (SingleThreadedBlas): the sorted sentences' runs of batchSize go to the threads, so the
  // batches are those of one at a time (each to the next free thread; a running batch's in turn, run k
  // to thread k mod parallelBatches); a call of fewer sentences than batchSize a thread gets a run a
  // thread of equal sizes instead.
  // Used when a call brings more than one sentence; 1: one at a time, matrix work on all threads;
  // 0: as many as OpenBLAS has threads on a CPU, 1 elsewhere.
  // Sets OpenBLAS's process-wide thread count while it runs: not for several Translators at once.
  std::size_t parallelBatches = 0;
  // The caller's hooks during a call (LongCall.h), on the thread that called translate() or score()
  // only, between batches (and the running batch's steps) and at most every 20 ms: `interrupted`
  // true stops the call, which throws Interrupted (Python's Ctrl-C); `progress` hears the sentences
  // done so far (empty lines included), and the total at the end. Empty: none.
  std::function<bool()> interrupted;
  std::function<void(std::size_t done)> progress;
};

// A call whose sentences make one batch of at most this many rows (sentences x beam) runs its
// products on one thread where the Translator may set OpenBLAS's threads (parallelBatches > 1): so
// few rows are faster on one thread, with the weights packed, than split over several; its large
// float32 products run in two packed halves, one on each core (SplitProducts) (docs/performance.md,
// "Figures behind the code's choices" and "One sentence at a time").
constexpr std::size_t kFewRows = 8;

// A batch's rows, greedy (a row a sentence) or beam search (K rows a sentence), are at most this
// many, so that no batch size or beam takes a machine's memory in decoder caches.
constexpr std::size_t kMaxBatchRows = 1024;

// OptionError for what the Translator refuses beside its decoding options (its constructor checks the
// same, and planDecoding those): a batch size out of bounds (checkBatchSize), alignment options out of
// theirs, a glossary without beam search, or parallel batches off the CPU (on `device`).
void checkTranslatorOptions(const TranslatorOptions& options, const c10::Device& device);

// A translation's given beginning as target ids; InputError "WHERE: a prefix of N pieces, where a
// translation holds fewer than CAP" when it fills a translation (limits.cap pieces or more).
std::vector<int> prefixIds(const TextCodec& codec, const std::string& prefix, const DecodeLimits& limits,
                           const std::string& where);

// OptionError for a batch of no sentences or of more than kMaxBatchRows.
void checkBatchSize(std::size_t batchSize);
void checkBatchSize(int64_t batchSize);  // as a caller with signed numbers (Python) gives it

// Sentences per batch: options.batchSize, and for beam search K at most kMaxBatchRows / K (at
// least one); with int8 weights, beam search K takes batchSize / K
// (rounded, at least one), so that its steps run about as many rows as greedy search's. With a
// quarter of float32's weight bytes, a step's time goes into reading each row's attention caches,
// which stay in the CPU's caches for so many rows only. Float32 reads its weights once a batch, and
// was fastest in whole batches (docs/performance.md, "Figures behind the code's choices").
std::size_t sentencesPerBatch(const TranslatorOptions& options, bool int8);

// Text in, Translations out: BPE-encodes sentences, decodes them (greedy or beam search, on the
// model's device), and reads the hypotheses back as text and pieces, in input order. An empty
// line gives an empty translation. Runs under inference mode and the model's autocast. With
// the model's shortlist (loaded with it), each sentence chooses among its own list's pieces (a batch
// computes the union of its sentences' lists), so its translation is the same alone and in any
// batch; forced decoding (score) scores over the sentence's list with the reference's pieces added
// (forcedShortlist).
class Translator {
 public:
  // OptionError as checkTranslatorOptions and planDecoding say.
  Translator(TranslationModel& model, TranslatorOptions options);
  // The same with the caller's plan (a server request's): its options replace options.decoding, and
  // are not checked or planned again. OptionError as checkTranslatorOptions says.
  Translator(TranslationModel& model, TranslatorOptions options, DecodingPlan plan);

  // Each line cut into sentences, its spans kept and its capitals restored as options.text says
  // (TranslatedLines.h: one Translation a line, its sentences' in turn).
  std::vector<Translation> translate(const std::vector<std::string>& sentences);
  // The same, each translation beginning with its given prefix (line-aligned; an empty one: none); a line
  // with a prefix goes whole, as written, with none of options.text. The prefix is read as the target's
  // pieces and kept as given: the search continues after it (greedy or beam, the options' search) and
  // TranslatedHypothesis::prefixPieces says how many pieces it gave. A sentence
  // with a prefix may grow to the prefix and DecodeLimits::extra more pieces (within its cap).
  // InputError "NAME:LINE: ..." for a prefix of DecodeLimits::cap pieces or more.
  // streams: each sentence's samples' stream (Sampling), so that a server's sentence samples alike in
  // any batch (default: its place in this call).
  std::vector<Translation> translate(const std::vector<std::string>& sentences, const std::vector<std::string>& prefixes,
                                     const std::string& prefixesName = "prefixes",
                                     const std::vector<uint64_t>& streams = {});
  // The `count` most likely pieces right after `prefix` (a translation's beginning, as translate() reads
  // one; empty: the first position), most likely first, each with the translation the options' search
  // finds after prefix + piece. The building block of interactive translation: a translator picks a word
  // and the rest follows. InputError for a prefix of DecodeLimits::cap pieces or more; OptionError for a
  // count not 1..kMaxAlternatives. An empty sentence has none.
  std::vector<Alternative> alternatives(const std::string& sentence, const std::string& prefix, std::size_t count);

  // Forced decoding (Python's Translator.score; nmt-attention --reference): each sentence with its
  // given translation (line-aligned). The one hypothesis is the reference (its pieces as written)
  // with its log-probability; attention is always filled.
  // InputError "NAME:LINE: ..." for a reference of more than kMaxSourcePieces pieces.
  std::vector<Translation> score(const std::vector<std::string>& sentences, const std::vector<std::string>& references,
                                 const std::string& referencesName = "references");

  TranslationModel& model() const { return model_; }
  const TranslatorOptions& options() const { return options_; }
  const DecodingPlan& plan() const { return plan_; }
  // The most batches any translate() so far decoded at once (1 before the first).
  std::size_t mostBatchesAtOnce() const { return mostBatchesAtOnce_; }
  const Shortlist* shortlist() const { return model_.shortlist.get(); }

 private:
  // progress: the call's (LongCall), options_.progress unless the caller counts otherwise
  std::vector<Translation> translateGuided(const std::vector<std::string>& sentences,
                                          const std::vector<SentenceGuide>& guides,
                                          const std::function<void(std::size_t)>& progress);
  // The translation that is `prefix` and </s>, of log-probability `score` (an alternative's "</s>").
  TranslatedHypothesis endedAfter(const std::vector<int>& prefix, double score) const;
  // What each sentence is given beside its source (SentenceGuide: its prefix's ids, its place as
  // its samples' stream, its glossary terms' ids); empty where nothing is given, sampled or constrained.
  std::vector<SentenceGuide> guidesFor(const std::vector<std::string>& sentences,
                                       const std::vector<std::string>& prefixes, const std::string& prefixesName,
                                       const std::vector<uint64_t>& streams) const;
  // Reads each sentence's source into out and its ids into sources; returns the indices of the non-empty ones.
  // Asks `call` between sentences: reading 80,000 of them takes longer than a Ctrl-C may wait.
  std::vector<std::size_t> readSources(const std::vector<std::string>& sentences, std::vector<Translation>& out,
                                       std::vector<std::vector<int>>& sources, LongCall& call) const;
  // Greedy search through one RunningBatch of batchSize rows that ended sentences leave and the
  // next ones (in `todo` order) join.
  void translateGreedyContinuously(const std::vector<std::size_t>& todo, std::vector<Translation>& out,
                                   LongCall& call);
  // Batches of batchSize sentences in `todo` order, each decoded start to end (search()).
  void translateInBatches(const std::vector<std::size_t>& todo,
                          const std::vector<std::vector<int>>& sources, const std::vector<SentenceGuide>& guides,
                          std::vector<Translation>& out, LongCall& call);
  // One of the two above, as the plan says for a call with or without prefixes (guides: none, or one a sentence).
  void decode(bool prefixes, const std::vector<std::size_t>& todo,
              const std::vector<std::vector<int>>& sources, const std::vector<SentenceGuide>& guides,
              std::vector<Translation>& out, LongCall& call);

  TranslationModel& model_;
  TranslatorOptions options_;
  DecodingPlan plan_;  // made once, by the constructor or its caller
  std::size_t mostBatchesAtOnce_ = 1;
};

}  // namespace nmt
