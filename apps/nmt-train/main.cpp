// nmt-train: trains a translation model on parallel text into a self-contained model directory.
#include "LocalWorkers.h"
#include "common/AppMain.h"
#include "common/OptionTable.h"
#include "common/SharedOptions.h"
#include "parallel/DataParallelPeers.h"
#include "parallel/WorkerEnvironment.h"
#include "data/ModelDirectory.h"
#include "train/Progress.h"
#include "train/TrainingRun.h"
#include "util/CudaRuntime.h"
#include "util/Device.h"
#include "util/FileSystem.h"
#include "util/StopSignal.h"

#include <fmt/core.h>


namespace po = boost::program_options;
using namespace nmt;

namespace {

const char* const kUsage =
    "nmt-train --config FILE --model-dir DIR [options]\n"
    "       nmt-train --model-dir DIR --resume [options]\n"
    "Options on the command line override those in --config; with --resume, both override the\n"
    "model directory's config.ini.";

struct Distribution {
  int processes = 1;
  double timeoutSeconds = 300;
};

void declare(app::OptionTable& t, TrainingRequest& r, std::string& config, Distribution& d) {
  t.addInvocation("config", config, "read options from this file (key = value lines, # comments)");
  t.addInvocation("model-dir", r.modelDir, "directory for BPE models, config, checkpoints and metrics");
  t.addFlag("resume", r.resume, "continue the training run in --model-dir from its last checkpoint");

  t.section("data");
  t.add("train-src", r.data.trainSource, "training source sentences, one a line");
  t.add("train-tgt", r.data.trainTarget, "training target sentences, line-aligned with --train-src");
  t.add("train", r.data.trainTsv, "training pairs as source<TAB>target lines (instead of --train-src/--train-tgt)");
  t.add("valid-src", r.data.validSource, "validation source sentences");
  t.add("valid-tgt", r.data.validTarget, "validation target sentences (references for BLEU)");
  t.add("valid", r.data.validTsv, "validation pairs as source<TAB>target lines");
  t.add("max-length", r.data.maxLength, "drop training pairs with more BPE pieces than this on a side (0: keep all)");

  t.section("BPE (trained into the model directory when it has none)");
  t.add("vocab-size", r.bpe.vocabSize, "BPE pieces per language (joint: in all)");
  t.add("joint-vocab", r.bpe.joint, "one BPE model for both languages");
  t.add("character-coverage", r.bpe.characterCoverage, "share of characters BPE keeps; the rarest rest become <unk>");
  t.add("bpe-sentences", r.bpe.sentenceLimit, "train BPE on a seeded sample of this many training pairs (0: all)");

  t.section("model");
  t.add("encoder", r.model.encoder, "rnn (bidirectional GRU/LSTM) or transformer (self-attention)");
  t.add("decoder", r.model.decoder, "rnn (GRU/LSTM with Bahdanau attention) or transformer (needs --encoder transformer)");
  t.add("cell", r.model.cell, "recurrent cell of the RNN encoder and the RNN decoder: gru or lstm");
  t.add("embedding-size", r.model.embeddingSize, "token embedding size (d_model of the transformer encoder and decoder)");
  t.add("hidden-size", r.model.hiddenSize, "RNN state size per direction, RNN decoder state and attention size");
  t.add("layers", r.model.layers, "encoder layers (and decoder layers unless --decoder-layers is set)");
  t.add("decoder-layers", r.model.decoderLayers,
        "decoder layers with the transformer encoder (0: as --layers); the rnn encoder needs as many as --layers");
  t.add("bidirectional", r.model.bidirectional, "the RNN encoder reads both ways");
  t.add("heads", r.model.heads, "attention heads of the transformer encoder and decoder");
  t.add("ff-size", r.model.feedForwardSize, "feed-forward width of the transformer encoder and decoder");
  t.add("dropout", r.model.dropout, "dropout on embeddings, between layers and before the output layer");
  t.add("tie-embeddings", r.model.tieTargetEmbeddings, "the output layer reuses the target embeddings");
  t.add("share-embeddings", r.model.shareEmbeddings,
        "the transformer decoder reads the source embeddings (needs --joint-vocab; with --tie-embeddings one matrix "
        "serves all three)");

  t.section("training");
  t.add("batch-tokens", r.trainer.batching.batchTokens, "token budget per batch: sentences x longest side");
  t.add("lr", r.trainer.lr.lr, "learning rate (Adam), the peak after warm-up");
  t.add("lr-schedule", r.trainer.lr.kind, "plateau (decay when validation BLEU stalls) or inverse-sqrt (after warm-up)");
  t.add("warmup-steps", r.trainer.lr.warmupSteps, "linear learning-rate warm-up steps (0: none)");
  t.add("lr-decay", r.trainer.lr.decay, "plateau: multiply the learning rate by this...");
  t.add("lr-patience", r.trainer.lr.patience, "...after this many validations without a better BLEU");
  t.add("min-lr", r.trainer.lr.minLr, "plateau: lowest learning rate");
  t.add("clip-norm", r.trainer.clipNorm, "clip the gradient's L2 norm to this (0: no clipping)");
  t.add("label-smoothing", r.trainer.labelSmoothing, "probability mass spread over the vocabulary in the loss");
  t.add("teacher-forcing", r.trainer.teacherForcing, "chance of feeding the gold previous token (else the model's own)");
  t.add("teacher-forcing-min", r.trainer.teacherForcingMin, "teacher forcing decays linearly to this...");
  t.add("teacher-forcing-decay-steps", r.trainer.teacherForcingDecaySteps, "...over this many steps (0: no decay)");
  t.add("max-epochs", r.trainer.maxEpochs, "stop after this many epochs (0: no limit)");
  t.add("max-steps", r.trainer.maxSteps, "stop after this many steps in all (0: no limit)");
  t.add("max-time", r.trainer.maxMinutes, "stop after this many minutes of training in all (0: no limit)");
  t.add("valid-every", r.trainer.validEvery, "validate (and save) every this many steps, and at each epoch's end");
  t.add("patience", r.trainer.patience, "stop after this many validations without a better BLEU (0: never)");
  t.add("keep-checkpoints", r.trainer.keepCheckpoints,
        "keep the weights of the last this many validations in DIR/kept (for nmt-average; 0: none)");
  t.add("log-every", r.trainer.logEvery, "a metrics.csv row (and a log line when not on a terminal) every this many steps");
  t.add("seed", r.seed, "random seed: initialization, batch order, dropout");
  app::declareRuntimeOptions(t, r.runtime);

  t.section("several processes (data parallelism; the torchrun variables MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE)");
  t.addInvocation("processes", d.processes,
                  "start this many workers on this machine and wait for them (each with --threads 1 unless given; default 1)");
  t.addInvocation("dist-timeout", d.timeoutSeconds,
                  "seconds a worker waits for the others (joining, each step, rank 0's validation) before it stops "
                  "with an error (default 300)");
}

}  // namespace

int main(int argc, char* argv[]) {
  return app::runMain("nmt-train", [&] {
    app::setVersionDetails(runtimeDescription());
    TrainingRequest request;
    request.trainer.validEvery = 500;
    request.trainer.patience = 5;
    request.trainer.lr.patience = 2;
    std::string config;
    Distribution distribution;
    app::OptionTable table("Options");
    declare(table, request, config, distribution);
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-train", kUsage, argc, argv, table.description(), {}, vm)) return 0;
    if (!config.empty()) table.storeConfigFile(config, vm);
    if (request.resume && !request.modelDir.empty() && files::exists(ModelDirectory(request.modelDir).config()))
      table.storeConfigFile(ModelDirectory(request.modelDir).config(), vm);
    po::notify(vm);
    if (request.modelDir.empty()) throw po::error("--model-dir is required");
    // Data paths are stored absolute so that --resume works from any directory.
    for (std::string* path : {&request.data.trainSource, &request.data.trainTarget, &request.data.trainTsv,
                              &request.data.validSource, &request.data.validTarget, &request.data.validTsv})
      if (!path->empty()) *path = files::absolutePath(*path);
    request.effectiveConfig = "# nmt-train options of the run in this directory (nmt-train --config reads it)\n" +
                              table.configText();

    if (distribution.processes < 1) throw po::error("--processes must be at least 1");
    if (distribution.timeoutSeconds <= 0) throw po::error("--dist-timeout must be positive");
    const auto worker = parallel::readWorkerEnvironment(parallel::processEnvironment());
    if (distribution.processes > 1) {
      if (worker.distributed())
        throw po::error("--processes starts its own workers; WORLD_SIZE says this is one already");
      auto arguments = app::withoutProcessesOption(argc, argv);
      if (vm["threads"].defaulted()) arguments.insert(arguments.end(), {"--threads", "1"});
      return app::runLocalWorkers(distribution.processes, arguments);
    }

    StopSignal::install();
    if (worker.distributed())
      request.runtime.device = parallel::workerDeviceChoice(request.runtime.device, worker.localRank, cudaDeviceCount());
    const Runtime runtime = app::startProgram(request.runtime);
    std::unique_ptr<parallel::DataParallelPeers> peers;
    if (worker.distributed())
      peers = std::make_unique<parallel::DataParallelPeers>(parallel::WorkerGroup::connect(
          worker, std::chrono::milliseconds(static_cast<int64_t>(distribution.timeoutSeconds * 1000)), runtime.device));
    Progress progress(worker.rank == 0 ? stderr : nullptr);  // rank 0 speaks for all
    const auto outcome = runTraining(request, runtime, progress, peers.get());
    switch (outcome.reason) {
      case StopReason::kSignal:
        progress.message(fmt::format("nmt-train: {}; continue with: nmt-train --model-dir {} --resume",
                                     outcome.message, request.modelDir));
        return 128 + outcome.signal;
      case StopReason::kNonFiniteLoss:
        progress.message("nmt-train: error: " + outcome.message);
        return int{app::kExitFailure};
      default:
        progress.message("nmt-train: done: " + outcome.message);
        return int{app::kExitOk};
    }
  });
}
