#pragma once

#include "decode/ContinuousGreedySearch.h"
#include "decode/DecodeLimits.h"
#include "decode/TranslationModel.h"
#include "decode/Translator.h"
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
#include <unordered_map>
#include <vector>

namespace nmt::serve {

struct BatchingTranslatorOptions {
  std::chrono::microseconds batchWait{5000};  // how long the first waiting sentence waits for company
  std::size_t maxBatchSentences = 32;         // sentences decoded together (beam search: K rows each)
  std::size_t decoders = 1;                   // worker threads, each decoding its own batches
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

// Gathers the sentences of many concurrent requests into batches for one model: `decoders`
// worker threads share the model (read only) and each decodes its own batches from one queue;
// callers get a future. On a CPU, decoders of one BLAS thread each keep every core busy where one
// decoder of several BLAS threads leaves them waiting between small matrix products. A sentence waits at most batchWait
// for others to arrive (none when maxBatchSentences are already waiting), so a lone request
// costs about one sentence's time and a busy server decodes full batches.
// Greedy requests to a model with the RNN decoder go into one running batch of
// maxBatchSentences rows (ContinuousGreedySearch): each sentence is answered at the step it
// ends, and sentences that arrived meanwhile are encoded as a group and take the free rows, so
// the batch stays full and nobody waits for the longest sentence of its batch. Beam search and
// the Transformer decoder decode whole batches, between steps of the running one.
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

  // A sentence of the running batch: where its answer goes, and what is known of it so far.
  struct Running {
    Pending pending;
    Translation translation;
  };
  // One worker thread and its running batch: only that thread touches them.
  struct Decoder {
    explicit Decoder(Translator greedy) : greedy(std::move(greedy)) {}
    Translator greedy;  // reads sources and finishes greedy hypotheses (attention kept where asked)
    std::unique_ptr<ContinuousGreedySearch> running;  // null: the model's decoder cannot keep one
    std::unordered_map<std::size_t, Running> sentences;  // by tag
    std::size_t nextTag = 0;
    std::thread thread;
  };

  void run(Decoder& d);
  // Takes the next batch from the queue (caller holds the lock): the oldest sentence and others
  // with the same settings, up to maxBatchSentences, chosen by pickSimilarLengths.
  std::vector<Pending> takeBatch();
  // Whether enough sentences with the oldest one's settings wait to fill `room` rows, or the
  // server is stopping (caller holds the lock).
  bool batchReady(std::size_t room) const;
  void decode(const std::vector<Pending>& batch);  // start to end
  void join(Decoder& d, std::vector<Pending> batch);  // greedy sentences into d's running batch
  void stepRunning(Decoder& d);                       // one step of it, answering the sentences that end
  void failRunning(Decoder& d);                       // after a failed step: every running sentence
  std::unique_ptr<ContinuousGreedySearch> newRunningBatch();
  static bool runningBatchBusy(const Decoder& d);  // rows decoding or encoded and waiting for rows
  static void answer(const Pending& pending, ServedTranslation translation);
  static void fail(const std::shared_ptr<Job>& job);  // in a catch handler: the job gets its exception

  TranslationModel model_;
  c10::Device device_;
  BatchingTranslatorOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  ServeCounters counters_;
  std::vector<std::unique_ptr<Decoder>> decoders_;
};

}  // namespace nmt::serve
