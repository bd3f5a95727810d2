#include "train/TrainingRun.h"

#include "data/CorpusPreparation.h"
#include "data/ParallelCorpus.h"
#include "data/Shortlist.h"
#include "tokenization/BpeError.h"
#include "tokenization/BpeModel.h"
#include "tokenization/BpeTrainer.h"
#include "util/AtomicFile.h"
#include "util/BlasKernels.h"
#include "util/CudaRuntime.h"
#include "util/DirectoryLock.h"
#include "util/FileSystem.h"
#include "util/InputError.h"
#include "util/Precision.h"
#include "util/ZipChecksums.h"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <optional>

namespace nmt {
namespace {

CorpusFiles corpusFiles(const std::string& what, const std::string& source, const std::string& target,
                        const std::string& tsv) {
  const std::string flags = what == "train" ? "`train-src`/`train-tgt` or `train`" : "`valid-src`/`valid-tgt` or `valid`";
  if (!tsv.empty() && (!source.empty() || !target.empty()))
    throw OptionError("give either " + flags.substr(0, flags.find(" or ")) + " or " + flags.substr(flags.find(" or ") + 4) +
                     ", not both");
  if (tsv.empty() && (source.empty() || target.empty()))
    throw OptionError(std::string("no ") + (what == "train" ? "training" : "validation") + " data: give " + flags);
  return tsv.empty() ? CorpusFiles{source, target, ""} : CorpusFiles{"", "", tsv};
}

// A training corpus without a pair to train on, said before anything else is done with it.
void requirePairs(const CorpusFiles& files, const CorpusCounts& counts) {
  if (counts.lines > counts.emptySkipped) return;  // (pairs all too long: the trainer says so)
  throw InputError(counts.lines == 0
                       ? "no training pairs: " + files.describe() + (files.tsv.empty() ? " are empty" : " is empty")
                       : fmt::format("no training pairs: each of the {} lines of {} has an empty side",
                                     counts.lines, files.describe()));
}

void writeLinesFile(const std::string& path, const std::vector<std::string>& lines) {
  OutputFile out(path);
  for (const auto& line : lines) out.stream() << line << '\n';
  out.commit();
}

// The BPE models a directory holds, loaded once as a check: a damaged one is refused saying how to
// recover (with no weights trained on it yet, nmt-train can simply train it again).
void checkBpeModels(const ModelDirectory& dir) {
  for (const auto& path : {dir.sourceBpeModel(), dir.targetBpeModel()}) {
    try {
      BpeModel check(path);
    } catch (const BpeError& e) {
      throw InputError(std::string(e.what()) + (dir.hasCheckpoint()
                                                    ? "; the weights here were trained with it: restore it from a copy"
                                                    : "; delete it and nmt-train trains a new one"));
    }
  }
}

// Opens last.pt to resume. When it is damaged, training cannot resume (only last.pt holds the
// optimizer's state), and the error names the newest intact weights: kept/, then best.pt.
void openCheckpoint(torch::serialize::InputArchive& archive, const ModelDirectory& dir) {
  try {
    openArchive(archive, dir.last());
  } catch (const InputError& e) {
    auto candidates = dir.keptCheckpoints();
    std::reverse(candidates.begin(), candidates.end());
    candidates.push_back(dir.best());
    for (const auto& weights : candidates)
      if (files::exists(weights) && zipArchiveDamage(weights).empty())
        throw InputError(std::string(e.what()) + "; training cannot resume from it (intact weights, without the "
                         "training state: " + weights + ")");
    throw;
  }
}

// Trains the BPE model(s) on a sample of the training text unless the directory has them already
// (then `train` is null).
void prepareBpe(const ModelDirectory& dir, const BpeSetup& setup, const CorpusSample* train, unsigned threads,
                Progress& progress) {
  if (!train) {
    checkBpeModels(dir);
    progress.message(fmt::format("BPE: reusing {}", files::exists(dir.jointBpe())
                                                        ? dir.jointBpe()
                                                        : dir.sourceBpe() + " and " + dir.targetBpe()));
    return;
  }
  const std::string sourceText = dir.root() + "/.bpe-input.source", targetText = dir.root() + "/.bpe-input.target";
  writeLinesFile(sourceText, train->sources);
  writeLinesFile(targetText, train->targets);
  BpeTrainOptions options;  // every line of the files: sampleCorpus has sampled them
  options.vocabSize = setup.vocabSize;
  options.characterCoverage = setup.characterCoverage;
  options.threads = static_cast<int>(threads);
  auto trainOne = [&](std::vector<std::string> inputs, const std::string& modelPath) {
    options.inputs = std::move(inputs);
    options.modelPrefix = modelPath.substr(0, modelPath.size() - std::string(".model").size());
    try {
      trainBpeModel(options);
    } catch (const BpeError& e) {  // SentencePiece's refusal, not a failed write
      throw OptionError(std::string(e.what()) + " (try a smaller `vocab-size`)");
    }
  };
  try {
    if (setup.joint) {
      trainOne({sourceText, targetText}, dir.jointBpe());
    } else {
      trainOne({sourceText}, dir.sourceBpe());
      trainOne({targetText}, dir.targetBpe());
    }
  } catch (...) {
    files::removeFile(sourceText);
    files::removeFile(targetText);
    throw;
  }
  files::removeFile(sourceText);
  files::removeFile(targetText);
  progress.message(fmt::format("BPE: trained {} with {} pieces on {} of {} pairs",
                               setup.joint ? "one joint model" : "a model per side", setup.vocabSize,
                               train->sources.size(), train->counts.kept));
}

// The training corpus prepared in the model directory: kept when its key matches the inputs and
// BPE models, else (first start, or inputs changed) prepared again.
void prepareTrainingCorpus(const ModelDirectory& dir, const CorpusFiles& files, std::size_t maxLength,
                           double caseAugmentation, unsigned threads, Progress& progress) {
  const std::string key =
      preparedCorpusKey(files, {dir.sourceBpeModel(), dir.targetBpeModel()}, maxLength, caseAugmentation);
  const std::string path = dir.preparedTrain();
  if (files::exists(path)) {
    const std::string was = PreparedCorpus::keyOf(path);
    if (was == key) return;
    const std::string changed = firstKeyDifference(was, key);
    progress.message(was.empty() ? path + " is not a prepared corpus of this version; preparing the training data again"
                                 : fmt::format("{} changed since {} was prepared; preparing it again",
                                               changed.empty() ? std::string("the training data") : changed, path));
  }
  files::createDirectories(files::parentDirectory(path));
  const BpeModel sourceModel(dir.sourceBpeModel()), targetModel(dir.targetBpeModel());
  CorpusCounts counts =
      prepareCorpus(files, sourceModel, targetModel, maxLength, threads, path, key, progress, caseAugmentation);
  requirePairs(files, counts);
}

std::string describeCounts(const std::string& what, const CorpusCounts& c) {
  return fmt::format("{}: {} lines, {} pairs kept ({} with an empty side skipped, {} too long dropped)", what, c.lines,
                     c.kept, c.emptySkipped, c.tooLongDropped);
}

// The model to train: the checkpoint's weights in the requested (same-shaped) model, or new.
Seq2Seq buildModel(const TrainingRequest& request, const ModelDirectory& dir, const c10::Device& device,
                   torch::serialize::InputArchive* checkpoint) {
  Seq2Seq model(request.model);
  if (!checkpoint) {
    model->initialize();
    model->to(device);
    return model;
  }
  Seq2Seq saved = readModel(*checkpoint, dir.last(), torch::kCPU);
  const auto differences = saved->config().architectureDifferences(request.model);
  if (!differences.empty())
    throw InputError("cannot resume " + dir.root() + ": the options differ from its model in architecture (" +
                     differences + ")");
  torch::NoGradGuard noGrad;
  const auto savedParameters = saved->named_parameters();
  for (auto& p : model->named_parameters()) p.value().copy_(savedParameters[p.key()]);
  model->to(device);
  return model;
}

}  // namespace

void checkModelDirectory(const TrainingRequest& request) {
  if (request.modelDir.empty()) throw OptionError("`model-dir` is required");
}

namespace {

// A run's model directory made ready to train in: held by this run alone (its workers aside: another
// nmt-train on the folder stops at once), new or resumed as asked, every training line checked (and
// what BPE trains on sampled) before anything is written, then, by the worker that writes files, the
// BPE models and the prepared training corpus.
class RunPreparation {
 public:
  RunPreparation(const TrainingRequest& request, TrainingPeers& group)
      : request_(request), group_(group), dir_(request.modelDir) {}

  // The validation corpus, once the directory is ready (the other workers wait at group.barrier()).
  ParallelCorpus prepare(const Runtime& runtime, unsigned threads, Progress& progress) {
    if (files::isDirectory(dir_.root())) takeLock();
    checkRunState();
    const TrainingData& data = request_.data;
    checkCaseAugmentation(data.caseAugmentation);
    const CorpusFiles trainFiles = corpusFiles("train", data.trainSource, data.trainTarget, data.trainTsv);
    auto valid = ParallelCorpus::read(corpusFiles("valid", data.validSource, data.validTarget, data.validTsv));
    std::optional<CorpusSample> bpeSample;
    if (group_.writesFiles() && !dir_.hasBpeModels())
      bpeSample = sampleCorpus(trainFiles, request_.bpe.sentenceLimit, request_.seed);
    if (bpeSample) requirePairs(trainFiles, bpeSample->counts);
    files::createDirectories(dir_.root());  // only once the data has passed its checks
    takeLock();
    checkRunState();  // again: a run that held the lock until now may have left a checkpoint
    progress.message(fmt::format("device: {}, precision {}; {}", runtime.device.str(), precisionName(runtime.precision),
                                 runtime.threadInfo));
    progress.message(runtime.kernelLine);
    if (!runtime.kernelHint.empty()) progress.message(runtime.kernelHint);
    if (group_.writesFiles()) {
      prepareBpe(dir_, request_.bpe, bpeSample ? &*bpeSample : nullptr, threads, progress);
      bpeSample.reset();
      prepareTrainingCorpus(dir_, trainFiles, data.maxLength, data.caseAugmentation, threads, progress);
    }
    return valid;
  }

 private:
  void checkRunState() const {
    if (request_.resume && !dir_.hasCheckpoint())
      throw InputError("nothing to resume: " + dir_.last() + " does not exist");
    if (!request_.resume && dir_.hasCheckpoint())
      throw OptionError(dir_.root() + " already holds a training run (" + dir_.last() +
                        "); continue it with `resume` or choose another `model-dir`");
  }
  void takeLock() {
    if (group_.writesFiles() && !lock_) lock_.emplace(dir_.root(), "nmt-train", "choose another --model-dir");
  }

  const TrainingRequest& request_;
  TrainingPeers& group_;
  const ModelDirectory dir_;
  std::optional<DirectoryLock> lock_;
};

// config.ini: the run's effective options, then the machine (speeds in metrics.csv depend on it).
void writeRunConfig(const TrainingRequest& request, const ModelDirectory& dir, const Runtime& runtime,
                    const TrainingPeers& group) {
  writeTextFileAtomically(dir.config(), request.effectiveConfig + "# trained on: " + cpuModelName() + "; " +
                                            runtime.kernelLine + "; device " + runtime.device.str() +
                                            (group.size() > 1 ? fmt::format("; {} workers", group.size()) : "") + "\n");
}

// The outcome with the run's figures: steps, the best validation and where its weights are.
TrainOutcome withResults(TrainOutcome outcome, const TrainingState& state, const ModelDirectory& dir) {
  outcome.steps = state.step;
  outcome.bestBleu = state.bestBleu;
  outcome.bestStep = state.bestStep;
  if (state.bestStep > 0)
    outcome.message += fmt::format("; best validation BLEU {:.2f} at step {} in {}", state.bestBleu, state.bestStep,
                                   dir.best());
  return outcome;
}

}  // namespace

TrainOutcome runTraining(const TrainingRequest& request, const Runtime& runtime, Progress& progress,
                         TrainingPeers* peers) {
  SoloTraining solo;
  TrainingPeers& group = peers ? *peers : solo;
  checkModelDirectory(request);
  validateTrainerOptions(request.trainer);
  request.model.validate();  // before any data is read (the vocabulary sizes come later)
  const c10::Device device = runtime.device;
  const unsigned threads = request.runtime.threads > 0 ? static_cast<unsigned>(request.runtime.threads) : 2u;

  const ModelDirectory dir(request.modelDir);
  RunPreparation preparation(request, group);
  const auto valid = preparation.prepare(runtime, threads, progress);
  group.barrier();  // the others read the BPE models and the prepared corpus rank 0 has written
  const BpeModel sourceBpe(dir.sourceBpeModel()), targetBpe(dir.targetBpeModel());

  if (request.model.shareEmbeddings && !files::exists(dir.jointBpe()))
    throw OptionError("`share-embeddings` needs one joint BPE model (`joint-vocab`), but " + dir.root() +
                     " has one per language");
  TrainingRequest effective = request;
  effective.model.sourceVocab = sourceBpe.vocabSize();
  effective.model.targetVocab = targetBpe.vocabSize();
  const PreparedCorpus train = PreparedCorpus::open(dir.preparedTrain());
  auto validPairs = encodeCorpus(valid, sourceBpe, targetBpe, 0, threads);
  progress.message(describeCounts("train", train.counts()));
  progress.message(describeCounts("valid", validPairs.counts));
  if (validPairs.pairs.empty()) throw InputError("the validation set has no sentence pairs");
  std::vector<std::string> references;
  for (const auto& pair : valid.pairs()) references.push_back(pair.target);  // maxLength 0 kept every pair

  torch::manual_seed(request.seed);
  torch::serialize::InputArchive checkpoint;
  if (request.resume) openCheckpoint(checkpoint, dir);
  Seq2Seq model = buildModel(effective, dir, device, request.resume ? &checkpoint : nullptr);
  group.broadcastParameters(model->parameters());  // the same weights on every worker from the start
  if (group.writesFiles()) writeRunConfig(request, dir, runtime, group);
  progress.message(fmt::format("model: {} encoder, {} decoder, {} parameters", effective.model.encoder,
                               effective.model.decoder, model->parameterCount()));

  const Validator validator(validPairs.pairs, std::move(references), targetBpe,
                            request.trainer.batching.batchTokens, device);
  TrainerOptions options = request.trainer;
  options.batching.seed = request.seed;
  options.precision = runtime.precision;
  std::optional<SubwordSampling> subwords;
  if (options.subwordAlpha > 0.0) {
    subwords.emplace(sourceBpe, targetBpe, options.subwordAlpha, request.seed);
    progress.message(fmt::format("subword sampling: BPE-dropout {} on each training pair as it is read (validation "
                                 "and translation: the one best segmentation)", options.subwordAlpha));
  }
  Trainer trainer(model, options, train, validator, dir, device, progress, &group, subwords ? &*subwords : nullptr);
  if (request.resume) {
    trainer.restore(checkpoint, dir.last());
    progress.message(fmt::format("resuming at step {} (epoch {})", trainer.state().step, trainer.state().epoch + 1));
  }
  auto outcome = trainer.run();
  // a new model comes with its shortlist (nmt-translate's default, --shortlist auto, uses it); a stop by
  // signal hurries
  if (group.writesFiles() && outcome.reason != StopReason::kSignal)
    progress.message(makeShortlist(dir, train, request.seed, validPairs.pairs,
                                   effective.model.sourceVocab, effective.model.targetVocab, ShortlistOptions{}));
  if (const int64_t peak = peakGpuMemoryMiB(device); peak >= 0) progress.message(fmt::format("peak GPU memory: {} MiB", peak));
  return withResults(std::move(outcome), trainer.state(), dir);
}

}  // namespace nmt
