#include "train/TrainingOptions.h"

#include "data/LanguagePair.h"
#include "data/ModelDirectory.h"
#include "util/FileSystem.h"
#include "util/InputError.h"
#include "util/RuntimeOptionTable.h"

namespace po = boost::program_options;

namespace nmt {

void declareTrainingOptions(OptionTable& t, TrainingInvocation& invocation) {
  TrainingRequest& r = invocation.request;
  t.addInvocation("config", invocation.config, "read options from this file (key = value lines, # comments)");
  t.addInvocation("model-dir", r.modelDir, "directory for BPE models, config, checkpoints and metrics");
  t.addFlag("resume", r.resume, "continue the training run in --model-dir from its last checkpoint");

  t.section("data");
  t.add("train-src", r.data.trainSource, "training source sentences, one a line");
  t.add("train-tgt", r.data.trainTarget, "training target sentences, line-aligned with --train-src");
  t.add("train", r.data.trainTsv, "training pairs as source<TAB>target lines (instead of --train-src/--train-tgt)");
  t.add("valid-src", r.data.validSource, "validation source sentences");
  t.add("valid-tgt", r.data.validTarget, "validation target sentences (references for BLEU)");
  t.add("valid", r.data.validTsv, "validation pairs as source<TAB>target lines");
  t.add("source-lang", r.data.sourceLanguage,
        "the source language's code (de), recorded with the model for nmt-serve's language routes "
        "(default: --train-src's extension when it is one, as train.de)");
  t.add("target-lang", r.data.targetLanguage, "the target language's code (en; default: --train-tgt's extension)");
  t.add("max-length", r.data.maxLength, "drop training pairs with more BPE pieces than this on a side (0: keep all)");
  t.add("case-augmentation", r.data.caseAugmentation,
        "share of training pairs added again in capitals on both sides, and the same share again with each word "
        "capitalised, so that the model reads text in capitals (0: none; at most 0.5)");

  t.section("BPE (trained into the model directory when it has none)");
  t.add("vocab-size", r.bpe.vocabSize, "BPE pieces per language (joint: in all)");
  t.add("joint-vocab", r.bpe.joint, "one BPE model for both languages");
  t.add("character-coverage", r.bpe.characterCoverage, "share of characters BPE keeps; the rarest rest become <unk>");
  t.add("bpe-sentences", r.bpe.sentenceLimit, "train BPE on a seeded sample of this many training pairs (0: all)");

  t.section("model");
  r.model.forEachField([&](const char* key, const char* help, auto& field) {
    if (help) t.add(key, field, help);  // the vocabulary sizes come from the BPE models
  });

  t.section("training");
  t.add("batch-tokens", r.trainer.batching.batchTokens, "token budget per batch: sentences x longest side");
  t.add("accumulate", r.trainer.accumulate,
        "add up the gradients of this many batches into one optimizer step (an effective batch this many times "
        "batch-tokens); steps, the schedule and validation count optimizer steps");
  t.add("lr", r.trainer.lr.lr, "learning rate (Adam), the peak after warm-up");
  t.add("lr-schedule", r.trainer.lr.kind, "plateau (decay when validation BLEU stalls), inverse-sqrt (after warm-up) or linear (after warm-up, down to min-lr at the end of max-time, max-steps or max-epochs)");
  t.add("warmup-steps", r.trainer.lr.warmupSteps, "linear learning-rate warm-up steps (0: none)");
  t.add("lr-decay", r.trainer.lr.decay, "plateau: multiply the learning rate by this...");
  t.add("lr-patience", r.trainer.lr.patience, "...after this many validations without a better BLEU");
  t.add("min-lr", r.trainer.lr.minLr, "plateau and linear: lowest learning rate");
  t.add("lr-hold", r.trainer.lr.hold,
        "linear: keep the peak rate for this share of the budget (0.5: the first half), then the straight line down");
  t.add("adam-beta2", r.trainer.adamBeta2,
        "Adam's decay of its average of squared gradients (0.98 follows the gradients' scale faster than 0.999)");
  t.add("clip-norm", r.trainer.clipNorm, "clip the gradient's L2 norm to this (0: no clipping)");
  t.add("label-smoothing", r.trainer.labelSmoothing, "probability mass spread over the vocabulary in the loss");
  t.add("teacher-forcing", r.trainer.teacherForcing, "chance of feeding the gold previous token (else the model's own)");
  t.add("teacher-forcing-min", r.trainer.teacherForcingMin, "teacher forcing decays linearly to this...");
  t.add("teacher-forcing-decay-steps", r.trainer.teacherForcingDecaySteps, "...over this many steps (0: no decay)");
  t.add("ema-decay", r.trainer.emaDecay,
        "keep an exponential moving average of the weights with this decay (0.999: about the last 1,000 steps), "
        "validated and saved as best.pt in their place (0: none)");
  t.add("ema-start", r.trainer.emaStart, "the moving average follows the weights until this optimizer step");
  t.add("subword-alpha", r.trainer.subwordAlpha,
        "BPE-dropout: segment each training pair again each time it is read, dropping each merge with this "
        "probability (0.1 is usual; 0: the one best segmentation, as validation and translation use)");
  t.add("max-epochs", r.trainer.maxEpochs, "stop after this many epochs (0: no limit)");
  t.add("max-steps", r.trainer.maxSteps, "stop after this many steps in all (0: no limit)");
  t.add("max-time", r.trainer.maxMinutes, "stop after this many minutes of training in all (0: no limit)");
  t.add("valid-every", r.trainer.validEvery, "validate (and save) every this many steps (0: not by step count)");
  t.add("valid-epoch-ends", r.trainer.validEpochEnds,
        "validate at each epoch's end too (false: only every valid-every steps; a run that trained validates at its "
        "end either way)");
  t.add("patience", r.trainer.patience, "stop after this many validations without a better BLEU (0: never)");
  t.add("keep-checkpoints", r.trainer.keepCheckpoints,
        "keep the weights of the last this many validations in DIR/kept (for nmt-average; 0: none)");
  t.add("log-every", r.trainer.logEvery, "a metrics.csv row (and a log line when not on a terminal) every this many steps");
  t.add("seed", r.seed, "random seed: initialization, batch order, dropout");
  declareRuntimeOptions(t, r.runtime);

  t.section("several processes (data parallelism; the torchrun variables MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE)");
  t.addInvocation("processes", invocation.processes,
                  "start this many workers on this machine and wait for them (each with --threads 1 unless given)");
  t.addInvocation("dist-timeout", invocation.timeoutSeconds,
                  "seconds a worker waits for the others (joining, each step, rank 0's validation) before it stops "
                  "with an error");
}

namespace {

// The code given, checked; else the training file's extension where it is one; else unknown ("").
void settleLanguage(const char* option, std::string& code, const std::string& trainingFile) {
  if (!code.empty())
    checkedLanguageCode(option, code);
  else if (const auto fromFile = languageOfFile(trainingFile))
    code = *fromFile;
}

}  // namespace

void settleTrainingOptions(const OptionTable& table, po::variables_map& vm, TrainingInvocation& invocation) {
  TrainingRequest& request = invocation.request;
  if (!invocation.config.empty()) table.storeConfigFile(invocation.config, vm);
  if (request.resume && !request.modelDir.empty() && files::exists(ModelDirectory(request.modelDir).config()))
    table.storeConfigFile(ModelDirectory(request.modelDir).config(), vm);
  po::notify(vm);
  checkModelDirectory(request);
  for (std::string* path : {&request.data.trainSource, &request.data.trainTarget, &request.data.trainTsv,
                            &request.data.validSource, &request.data.validTarget, &request.data.validTsv})
    if (!path->empty()) *path = files::absolutePath(*path);
  settleLanguage("source-lang", request.data.sourceLanguage, request.data.trainSource);
  settleLanguage("target-lang", request.data.targetLanguage, request.data.trainTarget);
  request.effectiveConfig = "# nmt-train options of the run in this directory (nmt-train --config reads it)\n" +
                            table.configText();
  if (invocation.processes < 1) throw OptionError("`processes` must be at least 1");
  if (!(invocation.timeoutSeconds > 0)) throw OptionError("`dist-timeout` must be positive");
}

namespace {

// The invocation the given values (stored into vm by `store`) and the files they name settle into.
template <typename Store>
TrainingInvocation settled(Store&& store) {
  TrainingInvocation invocation;
  OptionTable table("Options");
  declareTrainingOptions(table, invocation);
  po::variables_map vm;
  store(table, vm);
  po::notify(vm);  // as parseCommandLine does: resume and model-dir decide which files settle reads
  settleTrainingOptions(table, vm, invocation);
  return invocation;
}

}  // namespace

TrainingInvocation parseTrainingArguments(const std::vector<std::string>& arguments) {
  return settled([&](const OptionTable& table, po::variables_map& vm) {
    po::store(po::command_line_parser(arguments).options(table.description()).run(), vm);
  });
}

TrainingInvocation trainingOptionsFrom(const std::vector<std::pair<std::string, OptionValue>>& values) {
  return settled([&](const OptionTable& table, po::variables_map& vm) { table.storeValues(values, vm); });
}

std::optional<OptionKind> trainingOptionKind(const std::string& name) {
  TrainingInvocation scratch;
  OptionTable table("Options");
  declareTrainingOptions(table, scratch);
  return table.kind(name);
}

}  // namespace nmt
