#pragma once

#include "decode/DecodingOptions.h"
#include "decode/DecodingPlan.h"
#include "decode/RunningBatch.h"
#include "decode/TranslationModel.h"
#include "decode/Translator.h"
#include "serve/JsonResponses.h"
#include "serve/ServedTranslation.h"
#include "serve/TranslateRequest.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
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
  std::size_t decoders = 1;                   // threads stepping running batches (greedy, decoders that take newcomers)
  DecodingOptions decoding;                   // length limits and beam search's alpha; each request its search
};

// Gathers the sentences of many concurrent requests into batches for one model; callers get a
// future. A reader thread takes batches from the queue: a sentence waits at most batchWait for
// others to arrive (none when maxBatchSentences are already waiting, or, for a running batch, when a
// decoder is idle), so a lone request costs about one sentence's time and a busy server makes full batches.
// Greedy requests to a model whose decoder takes newcomers: the reader encodes each batch and hands
// it to one of `decoders` threads, each stepping a RunningBatch of maxBatchSentences rows: a
// sentence joins at the next step with a free row and is answered
// at the step it ends. Encoding apart from stepping keeps the running batch full without
// stalling it: a step costs nearly the same for few rows as for many (its weights are read
// either way), and so does encoding a few sentences. On a CPU each thread does best with one
// BLAS thread. Beam search, and greedy search that is guided or sampled: the reader decodes whole batches.
// Every thread runs under the model's device and precision.
class BatchingTranslator {
 public:
  // OptionError for maxBatchSentences or decoding options out of bounds (checkBatchSize, planDecoding).
  BatchingTranslator(TranslationModel model, BatchingTranslatorOptions options);
  ~BatchingTranslator();  // finishes every queued sentence, then stops its threads
  BatchingTranslator(const BatchingTranslator&) = delete;
  BatchingTranslator& operator=(const BatchingTranslator&) = delete;

  // One result per sentence, in order; an empty sentence gives no hypotheses. A decoding
  // failure reaches the future as its exception. Of `request` the search a request chooses is read
  // (beamSize, nbest, keepAttention: TranslateRequest::decoding); only sentences whose requests ask for
  // the same search (sameSearch) share a batch, and those with prefixes only sentences decoded in
  // sorted batches (planDecoding). guidance: each sentence's prefix (sampled sentences draw from their
  // place in the request), alignments, or a request for one sentence's alternatives (decoded alone).
  // OptionError (planDecoding) when out of bounds.
  std::future<std::vector<ServedTranslation>> submit(std::vector<std::string> sentences, const DecodingOptions& request,
                                                     RequestGuidance guidance = {});
  // The same, answered through `done` instead of a future (an event loop must not wait): called once,
  // with the results or the decoding failure, on the thread that finished the job (or on this one for
  // no sentences). The checks above still throw here, before `done` is kept.
  using Completion = std::function<void(std::vector<ServedTranslation> results, std::exception_ptr error)>;
  void submit(std::vector<std::string> sentences, const DecodingOptions& request, RequestGuidance guidance,
              Completion done);

  // Translates a short sentence (greedy, as a request would) and forgets it in the counters: the
  // kernels, buffers and threads a first request needs are ready after it.
  void warmUp();

  ServeCounters counters() const;
  // Waits until `batches` batches have been formed in all (counters().batches), at most `timeout`;
  // whether they were. For callers that must know a batch is on its way without polling.
  bool waitForBatches(std::size_t batches, std::chrono::milliseconds timeout) const;
  const TranslationModel& model() const { return model_; }
  bool shortlist() const { return model_.shortlist != nullptr; }

 private:
  struct Job;
  struct Pending {
    std::shared_ptr<Job> job;
    std::size_t index;  // the sentence within its job
    std::chrono::steady_clock::time_point arrival;
  };

  // Greedy sentences encoded by the reader thread, on their way into a decoder's running batch.
  struct EncodedGroup {
    Arrivals arrivals;
    std::vector<std::pair<std::size_t, Pending>> pending;  // where each tag's answer goes
  };
  // A decoder thread and its running batch: only that thread touches `running` and `pending`;
  // the others are guarded by mutex_.
  struct DecoderThread {
    std::unique_ptr<RunningBatch> running;
    std::unordered_map<std::size_t, Pending> pending;  // by tag
    std::deque<EncodedGroup> inbox;
    std::size_t rows = 0;  // in the running batch (live or waiting) and in the inbox
    std::thread thread;
  };

  void read();  // the reader thread
  void run(DecoderThread& d);
  // Takes the next batch from the queue (caller holds the lock): the oldest sentence and others
  // asking for the same search, up to maxBatchSentences, chosen by pickSimilarLengths.
  std::vector<Pending> takeBatch();
  // Whether two waiting sentences may share a batch: the same search, the same way (running batch or
  // not), and neither asking for alternatives.
  bool sameBatch(const Pending& a, const Pending& b) const;
  bool inRunningBatch(const Job& job) const;
  // The server's one plan of a search: its sentences arrive one request at a time (CallFacts).
  DecodingPlan planFor(const DecodingOptions& decoding) const;
  // Whether enough sentences asking for the oldest one's search wait to fill `room` rows, or the
  // server is stopping (caller holds the lock).
  bool batchReady(std::size_t room) const;
  DecoderThread* leastBusyDecoder() const;  // null without decoders (caller holds the lock)
  bool idleDecoder() const;  // whether a decoder has no rows, running or on their way (caller holds the lock)
  void decode(const std::vector<Pending>& batch);  // start to end
  // Reads and encodes greedy sentences, then hands them to the least busy decoder.
  void encodeForDecoders(std::vector<Pending> batch);
  void stepRunning(DecoderThread& d);  // one step of its running batch, answering the sentences that end
  void failRunning(DecoderThread& d);  // after a failed step: every running sentence
  void answer(const Pending& pending, Translation translation);
  void answerAlternatives(const Pending& pending, ServedTranslation alternatives);
  // The job's answer from its sentences' translations (its lines joined again when its text was
  // prepared), to its `done`.
  void finish(Job& job) const;
  static void fail(const std::shared_ptr<Job>& job);  // in a catch handler: the job gets its exception

  TranslationModel model_;
  BatchingTranslatorOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  mutable std::condition_variable batchFormed_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  bool readerDone_ = false;  // the queue is drained and the reader gone: decoders finish and stop
  ServeCounters counters_;
  std::size_t nextTag_ = 0;  // the reader's
  std::vector<std::unique_ptr<DecoderThread>> decoders_;  // none when the model's decoder cannot keep a running batch
  std::thread reader_;
};

}  // namespace nmt::serve
