#include "decode/Translator.h"

#include "data/Batch.h"
#include "decode/ForcedDecoding.h"
#include "decode/RunningBatch.h"
#include "decode/Search.h"
#include "decode/TranslatedLines.h"
#include "kernels/SplitProducts.h"
#include "tokenization/SpecialIds.h"
#include "util/InputError.h"
#include "util/ParallelFor.h"
#include "util/Precision.h"
#include "util/Threads.h"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <optional>

namespace nmt {
namespace {

// todo's runs of batchSize, in order; but fewer sentences than a batch a thread are cut into a run a
// thread of equal sizes: two half batches at once beat one batch on both cores (docs/performance.md,
// "Several batches at once").
std::vector<std::vector<std::size_t>> runsOf(const std::vector<std::size_t>& todo, std::size_t batchSize,
                                             std::size_t threads) {
  if (threads > 1 && todo.size() <= batchSize * threads)
    batchSize = std::max<std::size_t>(1, (todo.size() + threads - 1) / threads);
  std::vector<std::vector<std::size_t>> runs;
  for (std::size_t start = 0; start < todo.size(); start += batchSize)
    runs.emplace_back(todo.begin() + static_cast<std::ptrdiff_t>(start),
                      todo.begin() + static_cast<std::ptrdiff_t>(std::min(todo.size(), start + batchSize)));
  return runs;
}

// The pieces a sentence's guide makes it produce: its prefix's and its constraints'.
std::vector<int> givenPieces(const SentenceGuide& guide) {
  std::vector<int> pieces = guide.prefix;
  for (const auto& c : guide.constraints) pieces.insert(pieces.end(), c.begin(), c.end());
  return pieces;
}

// TranslatorOptions::parallelBatches as asked; 0: one batch per OpenBLAS thread on a CPU, one elsewhere.
std::size_t batchesAtOnce(std::size_t asked, const c10::Device& device) {
  if (asked != 0) return asked;
  return device.is_cpu() ? static_cast<std::size_t>(std::max(1, openBlasThreads())) : 1;
}

[[noreturn]] void refuseBatchSize(const std::string& given) {
  throw OptionError(fmt::format("`batch-size` must be between 1 and {}, not {}", kMaxBatchRows, given));
}

}  // namespace

std::size_t sentencesPerBatch(const TranslatorOptions& options, bool int8) {
  const std::size_t k = std::max<std::size_t>(1, static_cast<std::size_t>(options.decoding.beamSize));
  if (k == 1) return options.batchSize;
  const std::size_t sentences = int8 ? (options.batchSize + k / 2) / k : options.batchSize;
  return std::max<std::size_t>(1, std::min(sentences, kMaxBatchRows / k));
}

std::vector<int> prefixIds(const TextCodec& codec, const std::string& prefix, const DecodeLimits& limits,
                           const std::string& where) {
  auto ids = codec.reference(prefix).ids;
  if (static_cast<int64_t>(ids.size()) >= limits.cap)
    throw InputError(fmt::format("{}: a prefix of {} pieces, where a translation holds fewer than {}", where, ids.size(),
                                 limits.cap));
  return ids;
}

void checkTranslatorOptions(const TranslatorOptions& options, const c10::Device& device) {
  checkBatchSize(options.batchSize);
  checkAlignmentOptions(options.alignment);
  checkGlossaryUse(options.glossary != nullptr, options.decoding);
  if (options.parallelBatches > 1 && !device.is_cpu())
    throw OptionError("`parallel-batches` " + std::to_string(options.parallelBatches) + " is for a CPU; on " +
                      device.str() + " batches run one at a time (`parallel-batches` 1)");
}

void checkBatchSize(std::size_t batchSize) {
  if (batchSize < 1 || batchSize > kMaxBatchRows) refuseBatchSize(std::to_string(batchSize));
}

void checkBatchSize(int64_t batchSize) {
  if (batchSize < 1 || batchSize > static_cast<int64_t>(kMaxBatchRows)) refuseBatchSize(std::to_string(batchSize));
}

Translator::Translator(TranslationModel& model, TranslatorOptions options)
    : model_(model), options_(std::move(options)) {
  checkTranslatorOptions(options_, model_.device);
  if (options_.alignment.on()) options_.decoding.keepAttention = true;
  plan_ = planDecoding(options_.decoding, model_.model->decoder(), CallFacts{});
  options_.parallelBatches = batchesAtOnce(options_.parallelBatches, model_.device);
  if (options_.text.language.empty()) options_.text.language = model_.languages.source;
}

Translator::Translator(TranslationModel& model, TranslatorOptions options, DecodingPlan plan)
    : model_(model), options_(std::move(options)), plan_(std::move(plan)) {
  if (options_.alignment.on()) plan_.options.keepAttention = true;
  options_.decoding = plan_.options;
  checkTranslatorOptions(options_, model_.device);
  options_.parallelBatches = batchesAtOnce(options_.parallelBatches, model_.device);
  if (options_.text.language.empty()) options_.text.language = model_.languages.source;
}

std::vector<std::size_t> Translator::readSources(const std::vector<std::string>& sentences,
                                                 std::vector<Translation>& out,
                                                 std::vector<std::vector<int>>& sources, LongCall& call) const {
  const auto codec = model_.codec();
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    call.check();
    out[i] = untranslated(codec, sentences[i]);
    sources[i] = out[i].sourceIds;
    if (!sources[i].empty()) todo.push_back(i);
  }
  return todo;
}

std::vector<Translation> Translator::score(const std::vector<std::string>& sentences,
                                           const std::vector<std::string>& references,
                                           const std::string& referencesName) {
  c10::InferenceMode inference;
  const AutocastScope autocast(model_.device, model_.precision);
  std::vector<Translation> out(sentences.size());
  std::vector<std::vector<int>> sources(sentences.size());
  const auto codec = model_.codec();
  LongCall call(options_.interrupted, options_.progress);
  const auto todo = readSources(sentences, out, sources, call);
  call.advance(sentences.size() - todo.size());  // empty lines: nothing to score
  for (std::size_t i : todo) {
    call.check();
    auto reference = codec.reference(references.at(i));
    if (reference.ids.size() > kMaxSourcePieces)
      throw InputError(fmt::format("{}:{}: {} pieces, more than the {} that forced decoding reads", referencesName,
                                   i + 1, reference.ids.size(), kMaxSourcePieces));
    TranslatedHypothesis h;
    h.text = std::move(reference.text);
    h.ids = std::move(reference.ids);
    h.pieces = std::move(reference.pieces);
    h.finished = true;
    const auto list = shortlist() ? forcedShortlist(model_.model, *shortlist(), sources[i], h.ids) : BatchShortlist();
    auto forced = forcedDecode(model_.model, sources[i], h.ids, shortlist() ? &list : nullptr);
    h.score = forced.score;
    h.normalizedScore = forced.score;
    out[i].attention = forced.attention;
    out[i].hypotheses.push_back(std::move(h));
    call.advance(1);
  }
  call.finish();
  return out;
}

std::vector<SentenceGuide> Translator::guidesFor(const std::vector<std::string>& sentences,
                                                 const std::vector<std::string>& prefixes,
                                                 const std::string& prefixesName,
                                                 const std::vector<uint64_t>& streams) const {
  const bool anyPrefix = std::any_of(prefixes.begin(), prefixes.end(), [](const std::string& p) { return !p.empty(); });
  if (!anyPrefix && !options_.decoding.sampling.on() && !options_.glossary) return {};
  std::vector<SentenceGuide> guides(sentences.size());
  const auto codec = model_.codec();
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    guides[i].stream = i < streams.size() ? streams[i] : i;
    if (i < prefixes.size() && !prefixes[i].empty())
      guides[i].prefix = prefixIds(codec, prefixes[i], options_.decoding.limits, fmt::format("{}:{}", prefixesName, i + 1));
    if (options_.glossary) {
      guides[i].terms = options_.glossary->termsFor(sentences[i]);
      for (const auto& term : guides[i].terms) guides[i].constraints.push_back(codec.reference(term).ids);
    }
  }
  return guides;
}


std::vector<Alternative> Translator::alternatives(const std::string& sentence, const std::string& prefix,
                                                  std::size_t count) {
  if (count < 1 || count > kMaxAlternatives)
    throw OptionError(fmt::format("`alternatives` must be between 1 and {}, not {}", kMaxAlternatives, count));
  const auto given = prefixIds(model_.codec(), prefix, options_.decoding.limits, "prefix");
  const auto source = untranslated(model_.codec(), sentence);
  if (source.sourceIds.empty()) return {};
  ForcedResult forced;
  {
    c10::InferenceMode inference;
    const AutocastScope autocast(model_.device, model_.precision);
    const auto list = shortlist() ? forcedShortlist(model_.model, *shortlist(), source.sourceIds, given) : BatchShortlist();
    forced = forcedDecode(model_.model, source.sourceIds, given, shortlist() ? &list : nullptr);
  }
  const auto finite = forced.next.isfinite().sum().item<int64_t>();
  const auto [logProbs, ids] = forced.next.topk(std::min<int64_t>(static_cast<int64_t>(count), finite));
  std::vector<Alternative> out;
  std::vector<SentenceGuide> guides;
  for (int64_t k = 0; k < ids.size(0); ++k) {
    Alternative a;
    a.id = static_cast<int>(ids[k].item<int64_t>());
    a.logProbability = logProbs[k].item<double>();
    out.push_back(std::move(a));
    if (out.back().id == SpecialIds::kEos) continue;  // nothing follows the end
    guides.push_back({given, guides.size(), {}, {}});
    guides.back().prefix.push_back(out.back().id);
  }
  const auto completions = translateGuided(std::vector<std::string>(guides.size(), sentence), guides, options_.progress);
  for (std::size_t k = 0, c = 0; k < out.size(); ++k) {
    auto& a = out[k];
    a.completion = a.id == SpecialIds::kEos ? endedAfter(given, forced.score) : completions[c++].best();
    a.piece = a.completion.pieces[given.size()];
  }
  return out;
}

TranslatedHypothesis Translator::endedAfter(const std::vector<int>& prefix, double score) const {
  auto target = model_.codec().target(prefix, true);
  TranslatedHypothesis h;
  h.text = std::move(target.text);
  h.pieces = std::move(target.pieces);  // "</s>" last
  h.ids = std::move(target.ids);
  h.score = h.normalizedScore = score;
  h.finished = true;
  h.prefixPieces = prefix.size();
  return h;
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& sentences) {
  return translate(sentences, {});
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& sentences,
                                               const std::vector<std::string>& prefixes,
                                               const std::string& prefixesName, const std::vector<uint64_t>& streams) {
  if (!prefixes.empty() && prefixes.size() != sentences.size())
    throw InputError(fmt::format("{}: {} prefixes for {} sentences: give one a sentence (an empty one: none)",
                                 prefixesName, prefixes.size(), sentences.size()));
  if (!options_.text.any())
    return translateGuided(sentences, guidesFor(sentences, prefixes, prefixesName, streams), options_.progress);
  // a line with a prefix goes whole, with its prefix (refused here, naming its line)
  for (std::size_t i = 0; i < prefixes.size(); ++i)
    if (!prefixes[i].empty())
      prefixIds(model_.codec(), prefixes[i], options_.decoding.limits, fmt::format("{}:{}", prefixesName, i + 1));
  const text::PreparedText text(sentences, options_.text, sourceVocabulary(model_), text::PreparedText::givenWhole(prefixes));
  // progress in lines: the units done, as a share of the lines
  std::function<void(std::size_t)> progress;
  if (options_.progress)
    progress = [&](std::size_t units) {
      options_.progress(text.units().empty() ? sentences.size() : units * sentences.size() / text.units().size());
    };
  // samples: a line's first sentence draws from the line's stream (as a whole line would), the others
  // from streams of their own
  std::vector<uint64_t> unitStreams;
  for (std::size_t line = 0; line < text.lines(); ++line) {
    const uint64_t stream = line < streams.size() ? streams[line] : line;
    for (std::size_t u = text.firstUnit(line); u < text.firstUnit(line + 1); ++u) {
      const std::size_t k = u - text.firstUnit(line);
      unitStreams.push_back(k == 0 ? stream : (stream + 1) * 1000003u + k);
    }
  }
  auto units =
      translateGuided(text.units(), guidesFor(text.units(), text.forUnits(prefixes), prefixesName, unitStreams), progress);
  return translatedLines(text, std::move(units), options_.alignment);
}

std::vector<Translation> Translator::translateGuided(const std::vector<std::string>& sentences,
                                                     const std::vector<SentenceGuide>& guides,
                                                     const std::function<void(std::size_t)>& progress) {
  c10::InferenceMode inference;
  const AutocastScope autocast(model_.device, model_.precision);
  std::vector<Translation> out(sentences.size());
  std::vector<std::vector<int>> sources(sentences.size());
  LongCall call(options_.interrupted, progress);
  auto todo = readSources(sentences, out, sources, call);
  const bool prefixes = std::any_of(guides.begin(), guides.end(), [](const SentenceGuide& g) { return !g.prefix.empty(); });

  // longest first, so each batch holds sentences of similar length
  std::stable_sort(todo.begin(), todo.end(),
                   [&](std::size_t a, std::size_t b) { return sources[a].size() > sources[b].size(); });
  const auto runs = runsOf(todo, sentencesPerBatch(options_, model_.int8), options_.parallelBatches);
  const std::size_t atOnce = std::min(options_.parallelBatches, std::max<std::size_t>(1, runs.size()));
  mostBatchesAtOnce_ = std::max(mostBatchesAtOnce_, atOnce);
  call.advance(sentences.size() - todo.size());  // empty lines: translated as they were read
  if (atOnce == 1) {
    // a few rows (a sentence at a time): products on one thread, packed, are faster than on several
    const auto rows = todo.size() * static_cast<std::size_t>(std::max<int64_t>(1, options_.decoding.beamSize));
    std::optional<SingleThreadedBlas> oneThread;
    std::optional<SplitProducts> splitInTwo;  // and its large products in two halves, one on each core
    if (options_.parallelBatches > 1 && rows <= kFewRows) {
      oneThread.emplace();
      splitInTwo.emplace();
    }
    decode(prefixes, todo, sources, guides, out, call);
  } else {
    // A running batch takes a thread's runs one after another (dealt in turn: run k to thread k mod
    // atOnce), so that it stays full. Batches decoded start to end are the runs themselves, as one at a
    // time decodes them; each goes to the next free thread, longest first, so that the threads end together.
    const bool running = plan_.runningBatch(prefixes);
    std::vector<std::vector<std::size_t>> dealt(running ? atOnce : 0);
    for (std::size_t k = 0; running && k < runs.size(); ++k)
      dealt[k % atOnce].insert(dealt[k % atOnce].end(), runs[k].begin(), runs[k].end());
    std::atomic<std::size_t> nextRun{0};
    const SingleThreadedBlas oneThreadEach;
    call.whileAsking([&] {
      parallelFor(atOnce, static_cast<unsigned>(atOnce), [&](std::size_t thread, unsigned) {
        c10::InferenceMode threadInference;
        const AutocastScope threadAutocast(model_.device, model_.precision);
        // each writes only its own sentences' Translations
        if (running) return decode(prefixes, dealt[thread], sources, guides, out, call);
        for (std::size_t k; (k = nextRun.fetch_add(1)) < runs.size();) decode(prefixes, runs[k], sources, guides, out, call);
      });
    });
  }
  for (auto& t : out) alignTranslation(t, options_.alignment);
  for (std::size_t i = 0; i < guides.size(); ++i) {  // the glossary's terms a translation lacks
    if (out[i].empty()) continue;
    const auto& ids = out[i].best().ids;
    for (std::size_t k = 0; k < guides[i].terms.size(); ++k) {
      const auto& pieces = guides[i].constraints[k];
      if (std::search(ids.begin(), ids.end(), pieces.begin(), pieces.end()) == ids.end())
        out[i].missingTerms.push_back(guides[i].terms[k]);
    }
  }
  call.finish();
  return out;
}

void Translator::decode(bool prefixes, const std::vector<std::size_t>& todo,
                        const std::vector<std::vector<int>>& sources, const std::vector<SentenceGuide>& guides,
                        std::vector<Translation>& out, LongCall& call) {
  switch (plan_.strategyFor(prefixes)) {
    case SearchStrategy::kGreedyRunningBatch:
      return translateGreedyContinuously(todo, out, call);
    case SearchStrategy::kGreedyBatches:
    case SearchStrategy::kBeamBatches:
      return translateInBatches(todo, sources, guides, out, call);
  }
}

void Translator::translateGreedyContinuously(const std::vector<std::size_t>& todo, std::vector<Translation>& out,
                                             LongCall& call) {
  RunningBatch running(model_, options_.decoding.limits, options_.batchSize, options_.decoding.scores);
  std::size_t next = 0;
  while (next < todo.size() || running.busy()) {
    call.check();
    // a batch's worth encoded ahead (in one encoder batch), so that ended rows are replaced at once
    if (next < todo.size() && running.waiting() < options_.batchSize) {
      const std::size_t end = std::min(todo.size(), next + options_.batchSize);
      std::vector<std::pair<std::size_t, Translation>> group;
      for (; next < end; ++next) group.emplace_back(todo[next], std::move(out[todo[next]]));
      const std::vector<bool> keepAttention(group.size(), options_.decoding.keepAttention);
      running.add(RunningBatch::encode(model_, options_.decoding.limits, std::move(group), keepAttention));
    }
    auto ended = running.step();
    for (auto& [i, t] : ended) out[i] = std::move(t);
    call.advance(ended.size());
  }
}

void Translator::translateInBatches(const std::vector<std::size_t>& todo,
                                    const std::vector<std::vector<int>>& sources,
                                    const std::vector<SentenceGuide>& guides, std::vector<Translation>& out,
                                    LongCall& call) {
  const std::size_t batchSize = sentencesPerBatch(options_, model_.int8);
  for (std::size_t start = 0; start < todo.size(); start += batchSize) {
    call.check();
    const std::vector<std::size_t> rows(todo.begin() + start, todo.begin() + std::min(todo.size(), start + batchSize));
    const Batch batch = makeSourceBatch(sources, rows, model_.device);
    BatchShortlist lists;
    if (const Shortlist* list = shortlist()) {
      std::vector<std::vector<int>> own;  // in the batch's row order
      for (std::size_t example : batch.examples)  // a prefix's and the constraints' pieces join its sentence's list
        own.push_back(guides.empty() ? list->targetsFor(sources[example])
                                     : withPieces(list->targetsFor(sources[example]), givenPieces(guides[example])));
      std::vector<const std::vector<int>*> rowsLists;
      for (const auto& o : own) rowsLists.push_back(&o);
      lists = batchShortlist(model_.model, *list, rowsLists);
    }
    std::vector<SentenceGuide> rowGuides;  // in the batch's row order
    for (std::size_t example : batch.examples)
      if (!guides.empty()) rowGuides.push_back(guides[example]);
    auto found = search(model_.model, batch, plan_, shortlist() ? &lists : nullptr,
                        guides.empty() ? nullptr : &rowGuides);
    const auto codec = model_.codec();
    for (std::size_t r = 0; r < found.size(); ++r)
      addHypotheses(out[batch.examples[r]], std::move(found[r]), codec, guides.empty() ? 0 : rowGuides[r].prefix.size(),
                    options_.decoding.limits.cutLoops);
    call.advance(found.size());
  }
}

}  // namespace nmt
