#include "train/Trainer.h"

#include "train/Checkpoint.h"
#include "train/CheckpointAveraging.h"
#include "train/FusedAdam.h"
#include "train/GradientAccumulation.h"
#include "train/GradientClipping.h"
#include "train/TrainingCurves.h"
#include "util/InputError.h"
#include "util/FileSystem.h"
#include "util/HeapReuse.h"
#include "util/Precision.h"
#include "util/StopSignal.h"
#include "util/Stopwatch.h"

#include <fmt/core.h>

#include <cmath>
#include <csignal>
#include <limits>
#include <optional>
#include <stdexcept>

namespace nmt {
namespace {

std::string duration(double seconds) {
  const auto s = static_cast<int64_t>(seconds);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60);
  return fmt::format("{}m{:02}s", s / 60, s % 60);
}

// beta1 stays PyTorch's 0.9; beta2 is the one Transformer recipes change (0.98 in Vaswani et al. and fairseq)
torch::optim::AdamOptions adamOptions(const TrainerOptions& options) {
  return torch::optim::AdamOptions(options.lr.lr).betas({0.9, options.adamBeta2});
}

}  // namespace

Trainer::Trainer(Seq2Seq model, TrainerOptions options, const PreparedCorpus& train,
                 const Validator& validator, ModelDirectory directory, c10::Device device, Progress& progress,
                 TrainingPeers* peers, const SubwordSampling* subwords)
    : model_(std::move(model)),
      options_(std::move(options)),
      peers_(peers ? *peers : solo_),
      subwords_(subwords),
      train_(train),
      validator_(validator),
      directory_(std::move(directory)),
      device_(device),
      progress_(progress),
      optimizer_(std::make_unique<torch::optim::Adam>(model_->parameters(), adamOptions(options_))),
      schedule_(options_.lr),
      scaler_(options_.precision == Precision::kFp16),
      average_(model_, options_.emaDecay, options_.emaStart) {
  if (train_.empty()) throw InputError("no training pairs left to train on");
  validateTrainerOptions(options_);
  if ((options_.subwordAlpha > 0.0) != (subwords_ != nullptr))
    throw std::logic_error("Trainer: subword-alpha and the SubwordSampling given disagree");
  if (!model_->decoder().feedsOwnPredictions() &&
      (options_.teacherForcing < 1.0 || (options_.teacherForcingDecaySteps > 0 && options_.teacherForcingMin < 1.0)))
    throw OptionError("`teacher-forcing` below 1 needs the rnn decoder: the transformer decoder reads the whole gold "
                     "prefix at once");
  checkPrecisionDevice(options_.precision, device_, ModelUse::kTraining);
  state_.lrSchedule = schedule_.stateText();
}

void validateTrainerOptions(const TrainerOptions& options) {
  LrSchedule check(options.lr);  // throws on a bad schedule
  if (!(options.adamBeta2 > 0.0 && options.adamBeta2 < 1.0)) throw OptionError("`adam-beta2` must be in (0, 1)");
  // written so that NaN fails every check
  if (!(options.teacherForcing >= 0.0 && options.teacherForcing <= 1.0 && options.teacherForcingMin >= 0.0 &&
        options.teacherForcingMin <= 1.0))
    throw OptionError("`teacher-forcing` and `teacher-forcing-min` must be in [0, 1]");
  if (!(options.labelSmoothing >= 0.0 && options.labelSmoothing < 1.0))
    throw OptionError("`label-smoothing` must be in [0, 1)");
  if (!(options.clipNorm >= 0.0 && std::isfinite(options.clipNorm)))
    throw OptionError("`clip-norm` must be a number of 0 or more (0: no clipping)");
  if (!(options.maxMinutes >= 0.0 && std::isfinite(options.maxMinutes)))
    throw OptionError("`max-time` must be a number of minutes, 0 or more (0: no limit)");
  if (options.logEvery < 1) throw OptionError("`log-every` must be at least 1");
  if (options.keepCheckpoints < 0) throw OptionError("`keep-checkpoints` must not be negative");
  if (options.batching.batchTokens == 0 && options.batching.batchSentences == 0)
    throw OptionError("`batch-tokens` must be positive");
  if (options.accumulate < 1) throw OptionError("`accumulate` must be at least 1 (batches a step)");
  if (!(options.emaDecay >= 0.0 && options.emaDecay < 1.0))
    throw OptionError("`ema-decay` must be in [0, 1) (0: no moving average)");
  if (options.emaStart < 0) throw OptionError("`ema-start` must not be negative");
  checkSubwordAlpha(options.subwordAlpha);
  if (options.lr.kind == "linear" && options.maxSteps <= 0 && options.maxMinutes <= 0.0 && options.maxEpochs <= 0)
    throw OptionError("`lr-schedule` linear decays to the end of the run: it needs `max-steps`, `max-time` or `max-epochs`");
}

void Trainer::restore(torch::serialize::InputArchive& archive, const std::string& path) {
  state_ = restoreCheckpoint(archive, path, *optimizer_, device_);
  // LibTorch 2's load brings the saved betas back (1.13's keeps ours): this run's options decide, as the schedule
  // decides the rate
  for (auto& group : optimizer_->param_groups())
    static_cast<torch::optim::AdamOptions&>(group.options()).betas(adamOptions(options_).betas());
  schedule_.restoreState(state_.lrSchedule);
  scaler_.restore(state_.lossScaler);
  if (average_.enabled() && !average_.restore(archive))
    progress_.message(fmt::format("{} holds no moving average of the weights: it starts from them at step {}", path,
                                  state_.step));
  resumed_ = true;
  lastSavedStep_ = state_.step;
}

double Trainer::teacherForcingRatio() const {
  if (options_.teacherForcingDecaySteps <= 0) return options_.teacherForcing;
  const double t = std::min(1.0, static_cast<double>(state_.step) / static_cast<double>(options_.teacherForcingDecaySteps));
  return options_.teacherForcing + (options_.teacherForcingMin - options_.teacherForcing) * t;
}

void Trainer::saveLast() {
  state_.lossScaler = scaler_.enabled() ? scaler_.toText() : "";
  if (peers_.writesFiles())
    saveCheckpoint(directory_.last(), model_, *optimizer_, state_, average_.enabled() ? &average_ : nullptr);
  lastSavedStep_ = state_.step;
}

void Trainer::writeCurves() {
  try {
    writeTrainingCurves(directory_.metrics(), directory_.curves(), directory_.root());
  } catch (const std::exception& e) {  // a plot is no reason to stop training
    progress_.message(fmt::format("nmt-train: warning: no {}: {}", directory_.curves(), e.what()));
  }
}

void Trainer::writeMetrics(const ValidationResult* validation) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  MetricsRow row;
  row.step = state_.step;
  row.epoch = state_.batchInEpoch == 0 && state_.step > 0 ? state_.epoch : state_.epoch + 1;
  row.trainLoss = state_.windowTokens > 0 ? state_.windowLoss / static_cast<double>(state_.windowTokens) : nan;
  row.validLoss = validation ? validation->loss : nan;
  row.validPerplexity = validation ? validation->perplexity : nan;
  row.validBleu = validation ? validation->bleu : nan;
  row.learningRate = schedule_.rate(std::max<int64_t>(state_.step, 1), runDone_);
  row.tokensPerSecond = state_.windowTokensPerSecond();
  row.elapsedSeconds = state_.elapsedSeconds;
  row.workers = peers_.size();
  if (metrics_) metrics_->append(row);
  if (!progress_.terminal() && !validation)
    progress_.message(fmt::format("step {} epoch {}: train loss {:.4f}, lr {:.3g}, {:.0f} tokens/s{}, {}", row.step,
                                  row.epoch, row.trainLoss, row.learningRate, row.tokensPerSecond,
                                  peers_.size() > 1 ? fmt::format(" ({} workers)", peers_.size()) : "",
                                  duration(row.elapsedSeconds)));
  state_.windowLoss = 0.0;
  state_.windowTokens = 0;
  state_.windowBatchTokens = 0;
  state_.windowSeconds = 0.0;
}

bool Trainer::validate(bool scheduled) {
  // rank 0 validates; the others take its result, so that every worker keeps the same state
  // (best step, schedule, early stopping)
  // the weights validated, saved as best.pt and kept are the moving average when one is kept
  std::optional<WeightAverage::Averaged> averaged;
  if (average_.enabled()) averaged.emplace(average_);
  ValidationResult result;
  const Stopwatch stopwatch;
  if (peers_.writesFiles()) {
    const AutocastScope autocast(device_, options_.precision);
    result = validator_.run(model_);
  }
  const double seconds = stopwatch.seconds();
  if (peers_.size() > 1) {
    const auto all = peers_.sum({result.loss, result.perplexity, result.bleu});
    result = {all[0], all[1], all[2]};
  }
  lastValidationStep_ = state_.step;
  const bool improved = result.bleu > state_.bestBleu;
  if (improved) {
    state_.bestBleu = result.bleu;
    state_.bestStep = state_.step;
    if (peers_.writesFiles()) saveModel(model_, directory_.best());
  }
  if (peers_.writesFiles())
    keepValidatedWeights(model_, directory_, state_.step, options_.keepCheckpoints, improved ? directory_.best() : "");
  averaged.reset();  // the trained weights again
  std::string note;
  if (scheduled) {
    state_.staleValidations = improved ? 0 : state_.staleValidations + 1;
    if (schedule_.onValidation(result.bleu))
      note = fmt::format(", learning rate now {:.3g}", schedule_.rate(state_.step + 1, runDone_));
    state_.lrSchedule = schedule_.stateText();
  }
  writeMetrics(&result);
  if (metrics_) writeCurves();
  progress_.message(fmt::format("step {} validation: loss {:.4f}, perplexity {:.2f}, BLEU {:.2f}{}{}; {:.1f} s",
                                state_.step, result.loss, result.perplexity, result.bleu,
                                improved ? " (best so far, saved best.pt)"
                                         : fmt::format(" (best {:.2f} at step {})", state_.bestBleu, state_.bestStep),
                                note, seconds));
  saveLast();
  if (options_.onValidation && peers_.writesFiles())
    options_.onValidation({state_.step, result, improved, schedule_.rate(state_.step + 1, runDone_)});
  return !(scheduled && options_.patience > 0 && state_.staleValidations >= options_.patience);
}

double Trainer::fractionDone(std::size_t batchesPerEpoch, double elapsedSeconds) const {
  double f = 0.0;
  if (options_.maxSteps > 0) f = std::max(f, static_cast<double>(state_.step) / static_cast<double>(options_.maxSteps));
  if (options_.maxMinutes > 0.0) f = std::max(f, elapsedSeconds / (options_.maxMinutes * 60.0));
  if (options_.maxEpochs > 0)
    f = std::max(f, (static_cast<double>(state_.epoch) +
                     static_cast<double>(state_.batchInEpoch) / static_cast<double>(batchesPerEpoch)) /
                        static_cast<double>(options_.maxEpochs));
  return f;
}

std::string Trainer::statusLine(double loss, std::size_t batchesPerEpoch) const {
  const double f = fractionDone(batchesPerEpoch, state_.elapsedSeconds);
  const std::string eta = f > 0.0 ? duration(state_.elapsedSeconds * (1.0 - f) / f) : "-";
  return fmt::format("epoch {} ({}/{}) step {}  loss {:.4f}  {:.0f} tok/s{}  lr {:.3g}  elapsed {}  ETA {}",
                     state_.epoch + 1, state_.batchInEpoch, batchesPerEpoch, state_.step, loss, state_.windowTokensPerSecond(),
                     peers_.size() > 1 ? fmt::format(" ({} workers)", peers_.size()) : "", schedule_.rate(state_.step + 1, runDone_),
                     duration(state_.elapsedSeconds), eta);
}

Trainer::StepGradients Trainer::gradients(const std::vector<Batch>& batches) {
  forgetGradients(model_->parameters());
  const LossSettings settings{options_.labelSmoothing, teacherForcingRatio(), options_.precision,
                              scaler_.enabled() ? scaler_.scale() : 1.0};
  const AccumulatedLoss accumulated = accumulateGradients(model_, batches, settings, device_);
  const int64_t tokens = accumulated.tokens;
  const at::Tensor loss = tokens > 0 ? accumulated.lossSum / static_cast<double>(tokens) : at::Tensor();
  int64_t batchTokens = 0;
  for (const auto& batch : batches) batchTokens += static_cast<int64_t>(batch.sourceTokens + batch.targetTokens);
  double globalLoss = 0.0;
  int64_t globalTokens = tokens, globalBatchTokens = batchTokens;
  if (peers_.size() > 1) {
    const double lossSum = loss.defined() ? loss.item<double>() * static_cast<double>(tokens) : 0.0;
    const auto sums = peers_.syncGradients(model_->parameters(), tokens, {lossSum, static_cast<double>(batchTokens)});
    globalTokens = std::llround(sums[0]);
    globalLoss = sums[0] > 0 ? sums[1] / sums[0] : 0.0;
    globalBatchTokens = std::llround(sums[2]);
  }
  // The step's one wait for the device (one process): loss and gradient norm come back together.
  // The norm is computed only where clipping or fp16's overflow check needs it.
  const auto norm = options_.clipNorm > 0.0 || scaler_.enabled()
                        ? clipGradientNorm(model_->parameters(), options_.clipNorm).to(device_)
                        : torch::zeros({}, torch::TensorOptions().device(device_));
  const auto lossOnDevice = peers_.size() > 1 ? torch::full({}, globalLoss, norm.options()) : loss;
  const auto host = torch::stack({lossOnDevice.to(torch::kFloat), norm.to(torch::kFloat)}).cpu();
  return {host[0].item<double>(), host[1].item<double>(), globalTokens, globalBatchTokens};
}

std::optional<TrainOutcome> Trainer::stopReason(std::size_t batchesPerEpoch) {
  if (options_.maxSteps > 0 && state_.step >= options_.maxSteps)
    return TrainOutcome{StopReason::kMaxSteps, 0, fmt::format("reached `max-steps` {}", options_.maxSteps)};
  if (options_.maxEpochs > 0 && state_.epoch >= options_.maxEpochs)
    return TrainOutcome{StopReason::kMaxEpochs, 0, fmt::format("reached `max-epochs` {}", options_.maxEpochs)};
  // time and signals are agreed on, so that every worker stops at the same step
  const int signal = StopSignal::received();
  const bool timeUp = options_.maxMinutes > 0.0 && state_.elapsedSeconds >= options_.maxMinutes * 60.0;
  const auto votes = peers_.sum({timeUp ? 1.0 : 0.0, signal ? 1.0 : 0.0, state_.elapsedSeconds});
  runDone_ = fractionDone(batchesPerEpoch, votes[2] / static_cast<double>(peers_.size()));
  if (votes[0] > 0)
    return TrainOutcome{StopReason::kMaxTime, 0, fmt::format("reached `max-time` {} minutes", options_.maxMinutes)};
  if (votes[1] > 0) {
    const int stop = signal ? signal : SIGTERM;  // another worker's signal
    return TrainOutcome{StopReason::kSignal, stop,
                        fmt::format("stopped by {} at step {}; saved {}", StopSignal::name(stop), state_.step,
                                    directory_.last())};
  }
  return std::nullopt;
}

TrainOutcome Trainer::stopped(TrainOutcome outcome, bool trained) {
  if (outcome.reason == StopReason::kSignal) {
    if (lastSavedStep_ != state_.step || !files::exists(directory_.last())) saveLast();
  } else if (trained && lastValidationStep_ != state_.step) {
    validate(false);
  } else if (lastSavedStep_ != state_.step) {
    saveLast();
  }
  return outcome;
}

std::vector<Batch> Trainer::batchesOf(const std::vector<std::vector<std::size_t>>& shares) const {
  std::vector<Batch> batches;
  for (const auto& rows : shares)
    if (!rows.empty())
      batches.push_back(subwords_ ? subwords_->batch(train_, rows, state_.epoch, device_) : makeBatch(train_, rows, device_));
  return batches;
}

std::optional<TrainOutcome> Trainer::step(const std::vector<std::vector<std::size_t>>& shares) {
  const Stopwatch stepTime;
  const std::vector<Batch> batches = batchesOf(shares);
  const double lr = schedule_.rate(state_.step + 1, runDone_);
  for (auto& group : optimizer_->param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
  const auto [lossValue, norm, tokens, batchTokens] = gradients(batches);
  const bool finite = std::isfinite(lossValue) && std::isfinite(norm);
  // fp16 overflow: the batch's update is skipped with a smaller scale, as GradScaler does
  const bool apply = scaler_.update(finite);
  if (!finite && !scaler_.enabled()) {
    return TrainOutcome{StopReason::kNonFiniteLoss, 0,
                        fmt::format("training stopped at step {}: the {} is not finite ({}); the last checkpoint (step "
                                    "{}) is kept in {}; try a lower `lr`",
                                    state_.step + 1, std::isfinite(lossValue) ? "gradient norm" : "loss",
                                    std::isfinite(lossValue) ? norm : lossValue, lastSavedStep_, directory_.last())};
  }
  if (apply) {
    adamStep(*optimizer_);
    state_.windowLoss += lossValue * static_cast<double>(tokens);
    state_.windowTokens += tokens;
  }
  ++state_.step;
  average_.update(state_.step);
  state_.batchInEpoch += static_cast<int64_t>(shares.size());
  state_.windowBatchTokens += batchTokens;
  state_.windowSeconds += stepTime.seconds();
  return std::nullopt;
}

TrainOutcome Trainer::run() {
  if (peers_.writesFiles()) metrics_ = std::make_unique<MetricsLog>(directory_.metrics(), resumed_, state_.step);
  const LengthBucketBatcher batcher(
      train_.size(), [this](std::size_t i) { return train_.batchLength(i); }, options_.batching);
  // this worker's share of each batch of an epoch; planning's sort buffers go back to the kernel
  // rather than staying in the heap (reuseFreedMemory keeps what is freed), ten million pairs' 80 MB
  auto planEpoch = [&] {
    const auto epoch = static_cast<std::uint64_t>(state_.epoch);
    auto plan = subwords_ ? LengthBucketBatcher(subwords_->lengths(train_, state_.epoch), options_.batching).epoch(epoch)
                          : batcher.epoch(epoch);
    if (peers_.size() > 1)
      keepShare(plan, static_cast<std::size_t>(peers_.rank()), static_cast<std::size_t>(peers_.size()));
    returnFreedMemory();
    return plan;
  };
  auto plan = planEpoch();
  const std::string shared =
      peers_.size() > 1 ? fmt::format(", each shared by {} workers ({})", peers_.size(), peers_.transport()) : "";
  progress_.message(fmt::format("training: {} pairs in {} batches per epoch{}", train_.size(), plan.size(), shared));
  const Stopwatch session;
  const double elapsedBefore = state_.elapsedSeconds;
  auto tick = [&] { state_.elapsedSeconds = elapsedBefore + session.seconds(); };
  bool trained = false;  // in this session
  model_->train();

  while (true) {
    tick();
    if (auto stop = stopReason(plan.size())) return stopped(std::move(*stop), trained);
    // this worker's shares of the step's global batches (keepShare); an epoch's last step may take fewer
    const auto first = static_cast<std::size_t>(state_.batchInEpoch);
    const std::size_t count = std::min(static_cast<std::size_t>(options_.accumulate), plan.size() - first);
    std::vector<std::vector<std::size_t>> shares;
    for (std::size_t b = first; b < first + count; ++b) shares.emplace_back(plan[b].begin(), plan[b].end());
    if (auto failed = step(shares)) return *failed;
    trained = true;
    tick();
    progress_.status(statusLine(state_.windowLoss / static_cast<double>(state_.windowTokens), plan.size()));

    const bool epochEnd = state_.batchInEpoch == static_cast<int64_t>(plan.size());
    if (epochEnd) {
      ++state_.epoch;
      state_.batchInEpoch = 0;
      plan = {};  // the old plan goes before the new one is made: never two in memory
      plan = planEpoch();
    }
    if ((epochEnd && options_.validEpochEnds) || (options_.validEvery > 0 && state_.step % options_.validEvery == 0)) {
      const bool goOn = validate(true);
      tick();
      if (!goOn) {  // validate() saved last.pt
        return {StopReason::kEarlyStopping, 0,
                fmt::format("early stopping: no better validation BLEU in {} validations", options_.patience)};
      }
    } else if (state_.step % options_.logEvery == 0) {
      writeMetrics(nullptr);
    }
  }
}

}  // namespace nmt
