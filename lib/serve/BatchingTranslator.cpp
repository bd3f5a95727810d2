#include "serve/BatchingTranslator.h"

#include "decode/Translator.h"
#include "serve/BatchPicking.h"

#include <fmt/core.h>

#include <algorithm>

namespace nmt::serve {

struct BatchingTranslator::Job {
  std::vector<std::string> sentences;
  DecodeSettings settings;
  std::vector<ServedTranslation> results;
  std::size_t remaining;
  bool failed = false;
  std::mutex mutex;  // the reader and the decoders answer a job's sentences from their own threads
  std::promise<std::vector<ServedTranslation>> promise;
};

namespace {

TranslatorOptions greedyOptions(const BatchingTranslatorOptions& options) {
  TranslatorOptions o;
  o.limits = options.limits;
  o.keepAttention = true;  // a hypothesis has attention only where its row kept it
  return o;
}

}  // namespace

BatchingTranslator::BatchingTranslator(TranslationModel model, c10::Device device, BatchingTranslatorOptions options)
    : model_(std::move(model)), device_(device), options_(options) {
  if (model_.model->decoder().takesNewcomers())
    for (std::size_t k = 0; k < std::max<std::size_t>(options_.decoders, 1); ++k) {
      auto d = std::make_unique<Decoder>(Translator(model_, greedyOptions(options_), device_));
      d->running = newRunningBatch();
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
                                                                        DecodeSettings settings) {
  auto job = std::make_shared<Job>();
  job->settings = settings;
  job->remaining = sentences.size();
  job->results.resize(sentences.size());
  job->sentences = std::move(sentences);
  auto future = job->promise.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counters_.requests;
    if (job->remaining == 0) {
      job->promise.set_value({});
      return future;
    }
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < job->sentences.size(); ++i) queue_.push_back({job, i, now});
  }
  wake_.notify_all();
  return future;
}

ServeCounters BatchingTranslator::counters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_;
}

std::vector<BatchingTranslator::Pending> BatchingTranslator::takeBatch() {
  const DecodeSettings settings = queue_.front().job->settings;
  std::vector<std::size_t> candidates, lengths;  // positions in the queue; bytes stand in for pieces
  for (std::size_t i = 0; i < queue_.size(); ++i)
    if (queue_[i].job->settings == settings) {
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
  return batch;
}

bool BatchingTranslator::batchReady(std::size_t room) const {
  if (stopping_) return true;
  const auto& first = queue_.front().job->settings;
  const auto same = std::count_if(queue_.begin(), queue_.end(), [&](const Pending& p) { return p.job->settings == first; });
  return static_cast<std::size_t>(same) >= room;
}

BatchingTranslator::Decoder* BatchingTranslator::leastBusyDecoder() const {
  Decoder* least = nullptr;
  for (const auto& d : decoders_)
    if (!least || d->rows < least->rows) least = d.get();
  return least;
}

void BatchingTranslator::read() {
  const AutocastScope autocast(device_, options_.precision);  // autocast is per thread
  const Translator reader(model_, greedyOptions(options_), device_);
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    // wait for company until the oldest sentence has waited batchWait, unless a batch is full
    wake_.wait_until(lock, queue_.front().arrival + options_.batchWait,
                     [&] { return batchReady(options_.maxBatchSentences); });
    const bool greedy = !decoders_.empty() && queue_.front().job->settings.beam == 1;
    // encode ahead of the decoders by at most a batch each
    if (greedy)
      wake_.wait(lock, [&] { return stopping_ || leastBusyDecoder()->rows < 2 * options_.maxBatchSentences; });
    auto batch = takeBatch();
    lock.unlock();
    if (greedy)
      encodeForDecoders(reader, std::move(batch));
    else
      decode(batch);
    lock.lock();
  }
}

void BatchingTranslator::run(Decoder& d) {
  const AutocastScope autocast(device_, options_.precision);
  const auto busy = [&] { return d.running->live() > 0 || d.running->waiting() > 0; };
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return readerDone_ || !d.inbox.empty() || busy(); });
    if (d.inbox.empty() && !busy()) return;  // the reader is done and so is this decoder
    auto arrived = std::move(d.inbox);
    d.inbox.clear();
    lock.unlock();
    for (auto& g : arrived) {
      for (auto& [tag, r] : g.sentences) d.sentences.emplace(tag, std::move(r));
      d.running->add(std::move(g.group));
    }
    if (busy()) stepRunning(d);
    lock.lock();
    d.rows = d.running->live() + d.running->waiting();
    for (const auto& g : d.inbox) d.rows += g.sentences.size();
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

ServedTranslation served(const Translation& t, const Translator& translator, bool attention,
                         std::size_t maxInputLength) {
  ServedTranslation s;
  s.sourcePieces = t.sourcePieces;
  for (std::size_t k = 0; k < t.hypotheses.size(); ++k)
    s.hypotheses.push_back({t.texts[k], t.hypotheses[k].score, translator.targetPieces(t.hypotheses[k])});
  if (attention && t.attention.defined()) s.attention = toRows(t.attention);
  if (t.truncated) s.warning = fmt::format("{} pieces, truncated to the model's maximum of {}", t.inputPieces, maxInputLength);
  return s;
}

}  // namespace

void BatchingTranslator::answer(const Pending& pending, ServedTranslation translation) {
  const auto& job = pending.job;
  std::lock_guard<std::mutex> lock(job->mutex);
  job->results[pending.index] = std::move(translation);
  if (--job->remaining == 0 && !job->failed) job->promise.set_value(std::move(job->results));
}

void BatchingTranslator::fail(const std::shared_ptr<Job>& job) {
  std::lock_guard<std::mutex> lock(job->mutex);
  if (job->failed) return;
  job->failed = true;
  job->promise.set_exception(std::current_exception());
}

void BatchingTranslator::decode(const std::vector<Pending>& batch) {
  const DecodeSettings settings = batch.front().job->settings;
  try {
    TranslatorOptions options;
    options.beam = {settings.beam, settings.nbest, options_.lengthPenalty};
    options.batchSize = options_.maxBatchSentences;
    options.limits = options_.limits;
    options.keepAttention = settings.attention;
    Translator translator(model_, options, device_);
    std::vector<std::string> sentences;
    for (const auto& p : batch) sentences.push_back(p.job->sentences[p.index]);
    const auto translations = translator.translate(sentences);
    for (std::size_t i = 0; i < batch.size(); ++i)
      answer(batch[i], served(translations[i], translator, settings.attention, model_.maxInputLength));
  } catch (...) {
    for (const auto& p : batch) fail(p.job);
  }
}

void BatchingTranslator::encodeForDecoders(const Translator& reader, std::vector<Pending> batch) {
  c10::InferenceMode inference;
  EncodedGroup encoded;
  try {
    std::vector<EncodedPair> sources;
    std::vector<std::size_t> tags;
    std::vector<bool> keepAttention;
    for (auto& p : batch) {
      Translation t;
      auto ids = reader.readSource(p.job->sentences[p.index], t);
      if (ids.empty()) {  // an empty line: nothing to decode
        answer(p, served(t, reader, false, model_.maxInputLength));
        p.job.reset();
        continue;
      }
      keepAttention.push_back(p.job->settings.attention);
      sources.push_back({std::move(ids), {}, 0});
      tags.push_back(nextTag_);
      encoded.sentences.emplace_back(nextTag_++, Running{std::move(p), std::move(t)});
    }
    if (sources.empty()) return;
    encoded.group = ContinuousGreedySearch::encode(model_.model, options_.limits, device_, sources, tags, keepAttention);
  } catch (...) {
    for (const auto& p : batch)
      if (p.job) fail(p.job);
    for (const auto& [tag, r] : encoded.sentences) fail(r.pending.job);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Decoder* d = leastBusyDecoder();
    d->rows += encoded.sentences.size();
    d->inbox.push_back(std::move(encoded));
  }
  wake_.notify_all();
}

void BatchingTranslator::stepRunning(Decoder& d) {
  c10::InferenceMode inference;
  try {
    for (auto& [tag, hypothesis] : d.running->step()) {
      auto node = d.sentences.extract(tag);
      Running& r = node.mapped();
      d.greedy.takeGreedy(r.translation, std::move(hypothesis));
      answer(r.pending, served(r.translation, d.greedy, r.pending.job->settings.attention, model_.maxInputLength));
    }
  } catch (...) {
    failRunning(d);
  }
}

void BatchingTranslator::failRunning(Decoder& d) {
  for (auto& [tag, r] : d.sentences) fail(r.pending.job);
  d.sentences.clear();
  d.running = newRunningBatch();
}

std::unique_ptr<ContinuousGreedySearch> BatchingTranslator::newRunningBatch() {
  return std::make_unique<ContinuousGreedySearch>(model_.model, options_.limits, device_, options_.maxBatchSentences);
}

}  // namespace nmt::serve
