#pragma once

#include "model/Seq2Seq.h"
#include "train/TrainingState.h"

#include <torch/torch.h>

#include <string>

namespace nmt {

// A training checkpoint: the model as saveModel writes it (so loadModel reads it too), plus
// the optimizer state, the TrainingState and LibTorch's CPU random generator state. Written
// atomically: a crash while saving leaves the previous checkpoint as it was.
void saveCheckpoint(const std::string& path, Seq2Seq& model, torch::optim::Optimizer& optimizer,
                    const TrainingState& state);

// Restores optimizer, random generator and state from a checkpoint whose model was read with
// readModel from the same `archive`.
TrainingState restoreCheckpoint(torch::serialize::InputArchive& archive, const std::string& path,
                                torch::optim::Optimizer& optimizer);

}  // namespace nmt
