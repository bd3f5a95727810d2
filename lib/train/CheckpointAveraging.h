#pragma once

#include "data/ModelDirectory.h"
#include "model/Seq2Seq.h"

#include <string>
#include <vector>

namespace nmt {

// Writes the model's weights as those of the validation at `step` (dir.kept(step)) and removes
// the oldest kept weights beyond the last `keep`. `savedAs`: a file that already holds these very
// weights (best.pt after an improving validation), copied instead of serializing the model again.
void keepValidatedWeights(Seq2Seq& model, const ModelDirectory& dir, int64_t step, int64_t keep,
                          const std::string& savedAs = "");

// The parameter-wise mean of models saved by saveModel (or checkpoints) of one architecture, on
// the CPU: averaging the last few checkpoints of a run smooths the noise of its last steps, as
// Marian's and OpenNMT's tools do. InputError naming the first file that does not fit the first.
Seq2Seq averageModels(const std::vector<std::string>& paths);

}  // namespace nmt
