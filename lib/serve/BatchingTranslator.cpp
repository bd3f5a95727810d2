#include "serve/BatchingTranslator.h"

#include "decode/DecodingPlan.h"
#include "decode/Translator.h"
#include "decode/Glossary.h"
#include "decode/TranslatedLines.h"
#include "text/PreparedText.h"
#include "decode/WordAlignment.h"
#include "util/InputError.h"
#include "serve/BatchPicking.h"

#include <fmt/core.h>

#include <algorithm>
#include <optional>

namespace nmt::serve {

struct BatchingTranslator::Job {
  std::vector<std::string> sentences;  // what is decoded: the request's sentences, or text's units
  std::optional<text::PreparedText> text;  // the request's lines as units (RequestGuidance::text), when prepared
  DecodingPlan plan;  // the server's options with the request's search (attention kept for alignments)
  bool attention = false;    // the request's "attention": the answer has it
  RequestGuidance guidance;
  std::shared_ptr<const Glossary> glossary;  // the request's, or null
  std::vector<Translation> translations;  // one a sentence
  std::vector<ServedTranslation> results;  // alternatives: one a sentence, answered as they are
  std::size_t remaining;
  bool finished = false;  // done called (answered or failed)
  std::mutex mutex;  // the reader and the decoders answer a job's sentences from their own threads
  BatchingTranslator::Completion done;  // called once, from the thread that answers the last sentence
};

DecodingPlan BatchingTranslator::planFor(const DecodingOptions& decoding) const {
  return planDecoding(decoding, model_.model->decoder(), CallFacts{/*sentencesAhead=*/false});
}

bool BatchingTranslator::inRunningBatch(const Job& job) const {
  return job.guidance.alternatives == 0 && job.plan.runningBatch(job.guidance.anyPrefix());
}

bool BatchingTranslator::sameBatch(const Pending& a, const Pending& b) const {
  return a.job->guidance.alternatives == 0 && b.job->guidance.alternatives == 0 && a.job->glossary == b.job->glossary &&
         sameSearch(a.job->plan.options, b.job->plan.options) && inRunningBatch(*a.job) == inRunningBatch(*b.job);
}

BatchingTranslator::BatchingTranslator(TranslationModel model, BatchingTranslatorOptions options)
    : model_(std::move(model)), options_(options) {
  checkBatchSize(options_.maxBatchSentences);
  planFor(options_.decoding);  // (checks the server's options)
  for (std::size_t k = 0; k < std::max<std::size_t>(options_.decoders, 1); ++k) {
    auto d = std::make_unique<DecoderThread>();
    d->running = std::make_unique<RunningBatch>(model_, options_.decoding.limits, options_.maxBatchSentences);
    decoders_.push_back(std::move(d));
  }
  for (auto& d : decoders_) d->thread = std::thread([this, &d = *d] { run(d); });
  reader_ = std::thread([this] { read(); });
}

BatchingTranslator::~BatchingTranslator() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  reader_.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    readerDone_ = true;
  }
  wake_.notify_all();
  for (auto& d : decoders_) d->thread.join();
}

std::future<std::vector<ServedTranslation>> BatchingTranslator::submit(std::vector<std::string> sentences,
                                                                        const DecodingOptions& request,
                                                                        RequestGuidance guidance) {
  auto promise = std::make_shared<std::promise<std::vector<ServedTranslation>>>();
  auto future = promise->get_future();
  submit(std::move(sentences), request, std::move(guidance),
         [promise](std::vector<ServedTranslation> results, std::exception_ptr error) {
           if (error)
             promise->set_exception(error);
           else
             promise->set_value(std::move(results));
         });
  return future;
}

void BatchingTranslator::submit(std::vector<std::string> sentences, const DecodingOptions& request,
                                RequestGuidance guidance, Completion done) {
  auto job = std::make_shared<Job>();
  DecodingOptions decoding = withRequestSearch(options_.decoding, request);
  job->attention = request.keepAttention;
  decoding.keepAttention = request.keepAttention || guidance.alignment.on();
  job->plan = planFor(decoding);
  checkAlignmentOptions(guidance.alignment);
  // a prefix that fills a translation is this request's fault: refused here, not in a batch with others
  checkGlossaryUse(!guidance.glossary.empty(), decoding);
  try {
    for (std::size_t i = 0; i < guidance.prefixes.size(); ++i)
      prefixIds(model_.codec(), guidance.prefixes[i], decoding.limits, fmt::format("\"prefix\"[{}]", i));
    if (!guidance.glossary.empty())
      job->glossary = std::make_shared<const Glossary>(guidance.glossary, "\"glossary\" entry");
  } catch (const InputError& e) {
    throw RequestError(400, e.what());
  }
  job->guidance = std::move(guidance);
  if (job->guidance.alternatives == 0 && job->guidance.text.any()) {
    auto options = job->guidance.text;
    if (options.language.empty()) options.language = model_.languages.source;
    auto& prefixes = job->guidance.prefixes;  // a sentence with a prefix goes whole, with its prefix
    job->text.emplace(sentences, options, sourceVocabulary(model_), text::PreparedText::givenWhole(prefixes));
    sentences = job->text->units();
    prefixes = job->text->forUnits(prefixes);
  }
  job->remaining = sentences.size();
  job->translations.resize(sentences.size());
  job->results.resize(sentences.size());
  job->sentences = std::move(sentences);
  job->done = std::move(done);
  const bool empty = job->remaining == 0;  // (once queued, the job is the decoders': not read here again)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counters_.requests;
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < job->sentences.size(); ++i) queue_.push_back({job, i, now});
  }
  if (empty) return finish(*job);
  wake_.notify_all();
}

void BatchingTranslator::warmUp() {
  submit({"warm up"}, DecodingOptions{}).get();
  std::lock_guard<std::mutex> lock(mutex_);
  counters_ = {};
}

ServeCounters BatchingTranslator::counters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto c = counters_;
  c.queued = queue_.size();
  return c;
}

bool BatchingTranslator::waitForBatches(std::size_t batches, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return batchFormed_.wait_for(lock, timeout, [&] { return counters_.batches >= batches; });
}

std::vector<BatchingTranslator::Pending> BatchingTranslator::takeBatch() {
  const Pending& first = queue_.front();
  std::vector<std::size_t> candidates, lengths;  // positions in the queue; bytes stand in for pieces
  for (std::size_t i = 0; i < queue_.size(); ++i)
    if (i == 0 || sameBatch(queue_[i], first)) {
      candidates.push_back(i);
      lengths.push_back(queue_[i].job->sentences[queue_[i].index].size());
    }
  std::vector<Pending> batch;
  for (std::size_t k : pickSimilarLengths(lengths, options_.maxBatchSentences)) batch.push_back(std::move(queue_[candidates[k]]));
  std::deque<Pending> rest;  // the others, in their order (a taken one was moved from: no job)
  for (auto& p : queue_)
    if (p.job) rest.push_back(std::move(p));
  queue_ = std::move(rest);
  ++counters_.batches;
  counters_.sentences += batch.size();
  counters_.largestBatch = std::max(counters_.largestBatch, batch.size());
  batchFormed_.notify_all();
  return batch;
}

bool BatchingTranslator::batchReady(std::size_t room) const {
  if (stopping_) return true;
  const Pending& first = queue_.front();
  if (first.job->guidance.alternatives > 0) return true;  // decoded alone
  const auto same = std::count_if(queue_.begin(), queue_.end(), [&](const Pending& p) { return sameBatch(p, first); });
  return static_cast<std::size_t>(same) >= room;
}

BatchingTranslator::DecoderThread* BatchingTranslator::leastBusyDecoder() const {
  DecoderThread* least = nullptr;
  for (const auto& d : decoders_)
    if (!least || d->rows < least->rows) least = d.get();
  return least;
}

bool BatchingTranslator::idleDecoder() const {
  return std::any_of(decoders_.begin(), decoders_.end(), [](const auto& d) { return d->rows == 0; });
}

void BatchingTranslator::read() {
  const AutocastScope autocast(model_.device, model_.precision);  // autocast is per thread
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    // wait for company until the oldest sentence has waited batchWait, unless a batch is full or a
    // decoder has nothing to step: a lone sentence goes at once, and under load sentences gather
    const bool running = inRunningBatch(*queue_.front().job);
    wake_.wait_until(lock, queue_.front().arrival + options_.batchWait, [&] {
      return batchReady(options_.maxBatchSentences) || (running && idleDecoder());
    });
    // encode ahead of the decoders by at most a batch each
    if (running)
      wake_.wait(lock, [&] { return stopping_ || leastBusyDecoder()->rows < 2 * options_.maxBatchSentences; });
    auto batch = takeBatch();
    lock.unlock();
    if (running)
      encodeForDecoders(std::move(batch));
    else
      decode(batch);
    lock.lock();
  }
}

void BatchingTranslator::run(DecoderThread& d) {
  const AutocastScope autocast(model_.device, model_.precision);
  const auto busy = [&] { return d.running->busy(); };
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return readerDone_ || !d.inbox.empty() || busy(); });
    if (d.inbox.empty() && !busy()) return;  // the reader is done and so is this decoder
    auto arrived = std::move(d.inbox);
    d.inbox.clear();
    lock.unlock();
    for (auto& g : arrived) {
      for (auto& [tag, p] : g.pending) d.pending.emplace(tag, std::move(p));
      d.running->add(std::move(g.arrivals));
    }
    if (busy()) stepRunning(d);
    lock.lock();
    d.rows = d.running->rows();
    for (const auto& g : d.inbox) d.rows += g.pending.size();
    wake_.notify_all();  // the reader may wait for room
  }
}

namespace {

std::vector<std::vector<float>> toRows(const at::Tensor& attention) {
  const auto a = attention.to(at::kCPU, at::kFloat).contiguous();
  std::vector<std::vector<float>> rows(a.size(0));
  const float* p = a.data_ptr<float>();
  for (int64_t r = 0; r < a.size(0); ++r) rows[r].assign(p + r * a.size(1), p + (r + 1) * a.size(1));
  return rows;
}

ServedHypothesis servedHypothesis(const TranslatedHypothesis& h) { return {h.text, h.score, h.pieces, h.prefixPieces}; }

// A sentence's answer as its request asks: its attention, its alignment.
ServedTranslation served(Translation t, bool attention, const AlignmentOptions& alignment, std::size_t maxInputLength) {
  alignTranslation(t, alignment);
  ServedTranslation s;
  s.sourcePieces = t.sourcePieces;
  for (const auto& h : t.hypotheses) s.hypotheses.push_back(servedHypothesis(h));
  if (attention && t.attention.defined()) s.attention = toRows(t.attention);
  s.aligned = alignment.words;
  s.alignment = t.alignment;
  s.missingTerms = t.missingTerms;
  if (t.truncated) s.warning = fmt::format("{} pieces, truncated to the model's maximum of {}", t.inputPieces, maxInputLength);
  return s;
}

}  // namespace

namespace {

// Keeps a sentence's answer (store, under the job's lock); whether it was the job's last, which the
// caller then finishes: no other thread touches the job after it.
template <typename Job, typename Store>
bool keptLast(Job& job, Store store) {
  std::lock_guard<std::mutex> lock(job.mutex);
  store();
  if (--job.remaining != 0 || job.finished) return false;
  job.finished = true;
  return true;
}

}  // namespace

void BatchingTranslator::answer(const Pending& pending, Translation translation) {
  auto& job = *pending.job;
  if (keptLast(job, [&] { job.translations[pending.index] = std::move(translation); })) finish(job);
}

void BatchingTranslator::answerAlternatives(const Pending& pending, ServedTranslation alternatives) {
  auto& job = *pending.job;
  if (keptLast(job, [&] { job.results[pending.index] = std::move(alternatives); })) job.done(std::move(job.results), nullptr);
}

void BatchingTranslator::finish(Job& job) const {
  std::vector<ServedTranslation> results;
  try {
    auto lines = job.text ? translatedLines(*job.text, std::move(job.translations), job.guidance.alignment)
                          : std::move(job.translations);
    for (auto& t : lines) results.push_back(served(std::move(t), job.attention, job.guidance.alignment, model_.maxInputLength));
  } catch (...) {
    return job.done({}, std::current_exception());
  }
  job.done(std::move(results), nullptr);
}

void BatchingTranslator::fail(const std::shared_ptr<Job>& job) {
  {
    std::lock_guard<std::mutex> lock(job->mutex);
    if (job->finished) return;
    job->finished = true;
  }
  job->done({}, std::current_exception());
}

void BatchingTranslator::decode(const std::vector<Pending>& batch) {
  const Job& first = *batch.front().job;
  try {
    TranslatorOptions options;  // the decoding options are the plan's
    options.batchSize = options_.maxBatchSentences;
    options.parallelBatches = 1;  // one batch: the decoder threads are the server's own
    options.glossary = first.glossary;  // (a batch's sentences share it: sameBatch)
    options.text = text::TextOptions::none();  // (prepared at submit)
    Translator translator(model_, options, first.plan);
    if (first.guidance.alternatives > 0) {  // one sentence (TranslateRequest's check)
      const auto& p = batch.front();
      const auto& prefixes = first.guidance.prefixes;
      ServedTranslation s;
      s.sourcePieces = untranslated(model_.codec(), first.sentences[p.index]).sourcePieces;
      for (const auto& a : translator.alternatives(first.sentences[p.index], prefixes.empty() ? "" : prefixes[p.index],
                                                   first.guidance.alternatives))
        s.alternatives.push_back({a.piece, a.logProbability, servedHypothesis(a.completion)});
      answerAlternatives(p, std::move(s));
      return;
    }
    std::vector<std::string> sentences, prefixes;
    std::vector<uint64_t> streams;  // a sentence samples as its place in its request says
    for (const auto& p : batch) {
      sentences.push_back(p.job->sentences[p.index]);
      prefixes.push_back(p.job->guidance.prefixes.empty() ? "" : p.job->guidance.prefixes[p.index]);
      streams.push_back(p.index);
    }
    auto translations = translator.translate(sentences, prefixes, "prefix", streams);
    for (std::size_t i = 0; i < batch.size(); ++i)
      answer(batch[i], std::move(translations[i]));
  } catch (...) {
    for (const auto& p : batch) fail(p.job);
  }
}

void BatchingTranslator::encodeForDecoders(std::vector<Pending> batch) {
  c10::InferenceMode inference;
  EncodedGroup encoded;
  try {
    std::vector<std::pair<std::size_t, Translation>> sentences;
    std::vector<bool> keepAttention;
    for (auto& p : batch) {
      Translation t = untranslated(model_.codec(), p.job->sentences[p.index]);
      if (t.sourceIds.empty()) {  // an empty line: nothing to decode
        answer(p, std::move(t));
        p.job.reset();
        continue;
      }
      keepAttention.push_back(p.job->plan.options.keepAttention);
      sentences.emplace_back(nextTag_, std::move(t));
      encoded.pending.emplace_back(nextTag_++, std::move(p));
    }
    if (sentences.empty()) return;
    encoded.arrivals = RunningBatch::encode(model_, options_.decoding.limits, std::move(sentences), keepAttention);
  } catch (...) {
    for (const auto& p : batch)
      if (p.job) fail(p.job);
    for (const auto& [tag, p] : encoded.pending) fail(p.job);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    DecoderThread* d = leastBusyDecoder();
    d->rows += encoded.pending.size();
    d->inbox.push_back(std::move(encoded));
  }
  wake_.notify_all();
}

void BatchingTranslator::stepRunning(DecoderThread& d) {
  c10::InferenceMode inference;
  try {
    for (auto& [tag, translation] : d.running->step()) {
      auto node = d.pending.extract(tag);
      const Pending& p = node.mapped();
      answer(p, std::move(translation));
    }
  } catch (...) {
    failRunning(d);
  }
}

void BatchingTranslator::failRunning(DecoderThread& d) {
  for (auto& [tag, p] : d.pending) fail(p.job);
  d.pending.clear();
  d.running = std::make_unique<RunningBatch>(model_, options_.decoding.limits, options_.maxBatchSentences);
}

}  // namespace nmt::serve
