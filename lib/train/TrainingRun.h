#pragma once

#include "model/ModelConfig.h"
#include "train/Trainer.h"
#include "util/Runtime.h"

#include <cstdint>
#include <string>

namespace nmt {

// Where the parallel text is: two line-aligned files, or one TSV file, per set.
struct TrainingData {
  std::string trainSource, trainTarget, trainTsv;
  std::string validSource, validTarget, validTsv;
  std::size_t maxLength = 100;  // training pairs with more BPE pieces on a side are dropped
  double caseAugmentation = 0.0;  // share of pairs added again in capitals, and again in title case (CorpusPreparation.h)
  std::string sourceLanguage, targetLanguage;  // language codes, recorded in config.ini ("" unknown)
};

struct BpeSetup {
  int vocabSize = 8000;               // pieces per model (joint: in all)
  bool joint = false;                 // one model for both languages
  double characterCoverage = 1.0;
  std::size_t sentenceLimit = 300000;  // train BPE on a seeded sample of this many pairs (0: all)
};

// Everything one nmt-train invocation asks for.
struct TrainingRequest {
  std::string modelDir;
  bool resume = false;
  TrainingData data;
  BpeSetup bpe;
  ModelConfig model;             // vocabulary sizes come from the BPE models
  TrainerOptions trainer;
  std::uint64_t seed = 1;
  RuntimeOptions runtime;        // resolved by startRuntime before runTraining
  std::string effectiveConfig;   // written to MODEL_DIR/config.ini
};

// OptionError when the request names no model directory.
void checkModelDirectory(const TrainingRequest& request);

// Prepares the model directory (BPE models, config), reads and encodes the data, builds or
// resumes the model and trains it. Progress and results go to stderr through `progress`.
// With peers, one of several workers: rank 0 writes the BPE models and config.ini, the others
// wait for them; everyone starts from rank 0's weights. Throws InputError for bad input;
// returns how training ended. `runtime`: what startRuntime made of request.runtime.
TrainOutcome runTraining(const TrainingRequest& request, const Runtime& runtime, Progress& progress,
                         TrainingPeers* peers = nullptr);

}  // namespace nmt
