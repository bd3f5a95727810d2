#pragma once

#include "decode/DecodeLimits.h"
#include "decode/TranslationModel.h"
#include "serve/JsonResponses.h"
#include "serve/ServedTranslation.h"
#include "util/Precision.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace nmt::serve {

struct BatchingTranslatorOptions {
  std::chrono::microseconds batchWait{5000};  // how long the first waiting sentence waits for company
  std::size_t maxBatchSentences = 32;         // sentences decoded together (beam search: K rows each)
  DecodeLimits limits;                        // translation length limits
  double lengthPenalty = 1.0;                 // beam search's alpha
  Precision precision = Precision::kFp32;
};

// How one request wants its sentences decoded; only sentences that agree share a batch.
struct DecodeSettings {
  int beam = 1;
  int nbest = 1;
  bool attention = false;
  bool operator==(const DecodeSettings& o) const { return beam == o.beam && nbest == o.nbest && attention == o.attention; }
};

// Gathers the sentences of many concurrent requests into batches for one model: one worker
// thread owns the model and decodes; callers get a future. A sentence waits at most batchWait
// for others to arrive (none when maxBatchSentences are already waiting), so a lone request
// costs about one sentence's time and a busy server decodes full batches.
class BatchingTranslator {
 public:
  BatchingTranslator(TranslationModel model, c10::Device device, BatchingTranslatorOptions options);
  ~BatchingTranslator();  // finishes every queued sentence, then stops the worker
  BatchingTranslator(const BatchingTranslator&) = delete;
  BatchingTranslator& operator=(const BatchingTranslator&) = delete;

  // One result per sentence, in order; an empty sentence gives no hypotheses. A decoding
  // failure reaches the future as its exception.
  std::future<std::vector<ServedTranslation>> submit(std::vector<std::string> sentences, DecodeSettings settings);

  ServeCounters counters() const;
  const TranslationModel& model() const { return model_; }

 private:
  struct Job;
  struct Pending {
    std::shared_ptr<Job> job;
    std::size_t index;  // the sentence within its job
    std::chrono::steady_clock::time_point arrival;
  };

  void run();
  // Takes the next batch from the queue (caller holds the lock): the oldest sentence and others
  // with the same settings, up to maxBatchSentences, chosen by pickSimilarLengths.
  std::vector<Pending> takeBatch();
  void decode(const std::vector<Pending>& batch);

  TranslationModel model_;
  c10::Device device_;
  BatchingTranslatorOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  ServeCounters counters_;
  std::thread worker_;
};

}  // namespace nmt::serve
