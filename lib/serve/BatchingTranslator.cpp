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
  std::promise<std::vector<ServedTranslation>> promise;
};

BatchingTranslator::BatchingTranslator(TranslationModel model, c10::Device device, BatchingTranslatorOptions options)
    : model_(std::move(model)), device_(device), options_(options) {
  worker_ = std::thread([this] { run(); });
}

BatchingTranslator::~BatchingTranslator() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  worker_.join();
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
  return batch;
}

void BatchingTranslator::run() {
  const AutocastScope autocast(device_, options_.precision);  // autocast is per thread
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    // wait for company until the oldest sentence has waited batchWait, unless a batch is full
    const auto deadline = queue_.front().arrival + options_.batchWait;
    wake_.wait_until(lock, deadline, [&] {
      if (stopping_) return true;
      const auto& first = queue_.front().job->settings;
      const auto same = std::count_if(queue_.begin(), queue_.end(), [&](const Pending& p) { return p.job->settings == first; });
      return static_cast<std::size_t>(same) >= options_.maxBatchSentences;
    });
    auto batch = takeBatch();
    ++counters_.batches;
    counters_.sentences += batch.size();
    counters_.largestBatch = std::max(counters_.largestBatch, batch.size());
    lock.unlock();
    decode(batch);
    lock.lock();
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

}  // namespace

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
    auto translations = translator.translate(sentences);

    // only this thread touches a job's results and counts
    std::vector<std::shared_ptr<Job>> finished;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const auto& t = translations[i];
      ServedTranslation s;
      s.sourcePieces = t.sourcePieces;
      for (std::size_t k = 0; k < t.hypotheses.size(); ++k)
        s.hypotheses.push_back({t.texts[k], t.hypotheses[k].score, translator.targetPieces(t.hypotheses[k])});
      if (settings.attention && t.attention.defined()) s.attention = toRows(t.attention);
      if (t.truncated)
        s.warning = fmt::format("{} pieces, truncated to the model's maximum of {}", t.inputPieces, model_.maxInputLength);
      const auto& job = batch[i].job;
      job->results[batch[i].index] = std::move(s);
      if (--job->remaining == 0 && !job->failed) finished.push_back(job);
    }
    for (auto& job : finished) job->promise.set_value(std::move(job->results));
  } catch (...) {
    for (const auto& p : batch)
      if (!p.job->failed) {
        p.job->failed = true;
        p.job->promise.set_exception(std::current_exception());
      }
  }
}

}  // namespace nmt::serve
