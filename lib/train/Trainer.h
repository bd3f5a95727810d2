#pragma once

#include "data/EncodedCorpus.h"
#include "data/PreparedCorpus.h"
#include "data/ModelDirectory.h"
#include "util/Progress.h"
#include "model/Seq2Seq.h"
#include "train/DynamicLossScaler.h"
#include "train/LrSchedule.h"
#include "train/MetricsLog.h"
#include "train/SubwordSampling.h"
#include "train/TrainingPeers.h"
#include "train/TrainingState.h"
#include "train/WeightAverage.h"
#include "train/Validator.h"
#include "util/Precision.h"

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nmt {

// One validation, as TrainerOptions::onValidation hears of it.
struct ValidationEvent {
  int64_t step = 0;
  ValidationResult result;
  bool improved = false;  // the best BLEU so far (saved as best.pt)
  double learningRate = 0.0;  // for the next step
};

struct TrainerOptions {
  LrScheduleOptions lr;                  // learning rate and its schedule
  double adamBeta2 = 0.999;              // Adam's decay of the squared gradients' average
  double clipNorm = 1.0;                 // gradient L2-norm limit (0: no clipping)
  double labelSmoothing = 0.1;           // share of the target spread over the vocabulary
  double teacherForcing = 1.0;           // chance of feeding the gold previous token...
  double teacherForcingMin = 1.0;        // ...decaying linearly to this...
  int64_t teacherForcingDecaySteps = 0;  // ...over this many steps (0: no decay)
  BatchingOptions batching;              // token budget, shuffling seed
  int64_t accumulate = 1;                // batches whose gradients add up to one optimizer step
  double emaDecay = 0.0;                 // moving average of the weights (WeightAverage; 0: none)...
  int64_t emaStart = 0;                  // ...from this optimizer step on
  double subwordAlpha = 0.0;             // BPE-dropout of training pairs (SubwordSampling, given to Trainer; 0: none)
  int64_t maxEpochs = 0;                 // stop after this many epochs (0: no limit)
  int64_t maxSteps = 0;                  // stop after this many steps in all (0: no limit)
  double maxMinutes = 0.0;               // stop after this much training time in all (0: no limit)
  int64_t validEvery = 500;              // validate every this many steps (0: not by step count)...
  bool validEpochEnds = true;            // ...and at each epoch's end (a run that trained validates at its end anyway)
  int64_t patience = 5;                  // stop after this many validations without a better BLEU (0: never)
  int64_t keepCheckpoints = 0;           // keep the weights of the last this many validations in kept/ (0: none)
  int64_t logEvery = 100;                // a metrics row (and a log line off a terminal) every this many steps
  Precision precision = Precision::kFp32; // bf16/fp16: autocast on CUDA, fp32 weights (fp16: loss scaling)
  // Called after each validation (by the worker that writes files), once its checkpoints are saved;
  // what it throws ends training and reaches run()'s caller.
  std::function<void(const ValidationEvent&)> onValidation;
};

// Throws InputError naming the first option out of range.
void validateTrainerOptions(const TrainerOptions& options);

enum class StopReason { kMaxSteps, kMaxEpochs, kMaxTime, kEarlyStopping, kSignal, kNonFiniteLoss };

struct TrainOutcome {
  StopReason reason;
  int signal = 0;       // for kSignal
  std::string message;  // one line for the user, its options marked `like-this` (spelledOptions)
  int64_t steps = 0;        // optimizer steps taken in all (runTraining fills these three)
  double bestBleu = -1.0;   // best validation BLEU (-1: no validation)
  int64_t bestStep = 0;
};

// The training loop: Adam, clipped gradients, label-smoothed loss, scheduled learning rate,
// teacher forcing, token-budget batches; validation, best/last checkpoints and metrics.csv in
// the model directory. Stops at the first limit reached, on SIGINT/SIGTERM (see StopSignal),
// or on a non-finite loss (without saving over the last good checkpoint).
//
// With peers (data parallelism), each worker takes its share of every global batch (rows r, r + N,
// ...), gradients are averaged over the workers, rank 0 alone validates and writes files, and
// stop decisions (signals, time) are agreed each step, so that every worker stops at the same one.
class Trainer {
 public:
  Trainer(Seq2Seq model, TrainerOptions options, const PreparedCorpus& train, const Validator& validator,
          ModelDirectory directory, c10::Device device, Progress& progress, TrainingPeers* peers = nullptr,
          const SubwordSampling* subwords = nullptr);

  // Continues from a checkpoint whose model was read from `archive` into the Seq2Seq given above.
  void restore(torch::serialize::InputArchive& archive, const std::string& path);

  TrainOutcome run();

  const TrainingState& state() const { return state_; }
  torch::optim::Adam& optimizer() { return *optimizer_; }

 private:
  double teacherForcingRatio() const;
  struct StepGradients {
    double loss;          // mean label-smoothed loss per gold token (of the global batches)
    double norm;          // gradient L2 norm before clipping (0 when neither clipping nor fp16 asks for it)
    int64_t tokens;       // gold tokens (of the global batches)
    int64_t batchTokens;  // source and target tokens, padding not counted (of the global batches)
  };
  // This worker's batches of a step from its shares of them: as prepared, or segmented again for this
  // epoch (--subword-alpha).
  std::vector<Batch> batchesOf(const std::vector<std::vector<std::size_t>>& shares) const;
  // The gradients of one optimizer step: forward and backward of this worker's shares of its
  // batches (accumulateGradients), averaged over the workers, clipped.
  StepGradients gradients(const std::vector<Batch>& batches);
  // Why training stops before the next step, if it does: max-steps, max-epochs, max-time or a
  // signal, the last two agreed among the workers (a collective call: once a step on every worker).
  // Sets runDone_ from the workers' mean training time, so that every worker's schedule agrees.
  std::optional<TrainOutcome> stopReason(std::size_t batchesPerEpoch);
  // One optimizer step over this worker's shares of `accumulate` batches (each rows of the corpus,
  // none for an empty share); the outcome when its loss or gradient norm is not finite (and fp16's
  // scaler cannot skip it).
  std::optional<TrainOutcome> step(const std::vector<std::vector<std::size_t>>& shares);
  // The checkpoints a stop leaves: a signal saves last.pt; a limit validates the steps since the
  // last validation (or saves last.pt). `trained`: this session took a step.
  TrainOutcome stopped(TrainOutcome outcome, bool trained);
  // Validates; `scheduled` ones feed the schedule and early stopping. Returns false to stop.
  bool validate(bool scheduled);
  void writeMetrics(const ValidationResult* validation);
  void writeCurves();  // curves.svg from metrics.csv
  void saveLast();
  // The run's budget used (0 to 1): the largest of steps/max-steps, time/max-time, epochs/max-epochs.
  double fractionDone(std::size_t batchesPerEpoch, double elapsedSeconds) const;
  std::string statusLine(double loss, std::size_t batchesPerEpoch) const;

  Seq2Seq model_;
  TrainerOptions options_;
  SoloTraining solo_;
  TrainingPeers& peers_;
  const SubwordSampling* subwords_;  // training batches segmented again each epoch (null: as prepared)
  const PreparedCorpus& train_;
  const Validator& validator_;
  ModelDirectory directory_;
  c10::Device device_;
  Progress& progress_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  LrSchedule schedule_;
  DynamicLossScaler scaler_;
  WeightAverage average_;
  TrainingState state_;
  bool resumed_ = false;
  std::unique_ptr<MetricsLog> metrics_;
  int64_t lastValidationStep_ = -1;
  int64_t lastSavedStep_ = 0;
  double sessionStartElapsed_ = 0.0;
  double runDone_ = 0.0;  // fractionDone as the workers agreed at the last stopReason: the linear schedule's clock
};

}  // namespace nmt
