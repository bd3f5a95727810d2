#pragma once

#include "model/Seq2Seq.h"
#include "train/TrainingState.h"
#include "train/WeightAverage.h"

#include <torch/torch.h>

#include <string>

namespace nmt {

// A training checkpoint: the model as saveModel writes it (so loadModel reads it too), plus
// the optimizer state, the TrainingState and the random generator states (LibTorch's CPU
// generator, and the CUDA generator of the model's GPU when it trains on one), and the weights'
// moving average when one is kept. Written atomically: a crash while saving leaves the previous
// checkpoint as it was.
void saveCheckpoint(const std::string& path, Seq2Seq& model, torch::optim::Optimizer& optimizer,
                    const TrainingState& state, const WeightAverage* average = nullptr);

// Restores optimizer, random generators and state from a checkpoint whose model was read with
// readModel from the same `archive`. The archive is read onto the CPU (openArchive), so the
// optimizer's state is moved to `device`, where the parameters train: a checkpoint written on
// a GPU resumes on the CPU and the other way round. The CUDA generator is restored only when
// both the checkpoint and `device` are CUDA.
TrainingState restoreCheckpoint(torch::serialize::InputArchive& archive, const std::string& path,
                                torch::optim::Optimizer& optimizer, const c10::Device& device);

// Moves every tensor of Adam's per-parameter state (the moment estimates) to `device`.
void moveOptimizerState(torch::optim::Optimizer& optimizer, const c10::Device& device);

}  // namespace nmt
