#include "train/Checkpoint.h"

#include "util/InputError.h"

#include <ATen/Context.h>

#include <mutex>

namespace nmt {
namespace {

const char* const kState = "training/state";
const char* const kOptimizer = "training/optimizer";
const char* const kRandom = "training/cpu_generator";
const char* const kCudaRandom = "training/cuda_generator";

torch::Tensor generatorState(const c10::Device& device) {
  auto generator = at::globalContext().defaultGenerator(device);
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void setGeneratorState(const c10::Device& device, const torch::Tensor& state) {
  auto generator = at::globalContext().defaultGenerator(device);
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

c10::Device deviceOf(Seq2Seq& model) {
  const auto parameters = model->parameters();
  return parameters.empty() ? c10::Device(c10::kCPU) : parameters.front().device();
}

}  // namespace

void saveCheckpoint(const std::string& path, Seq2Seq& model, torch::optim::Optimizer& optimizer,
                    const TrainingState& state, const WeightAverage* average) {
  torch::serialize::OutputArchive archive;
  writeModel(archive, model);
  if (average) average->write(archive);
  archive.write(kState, c10::IValue(state.toText()));
  torch::serialize::OutputArchive optimizerArchive;
  optimizer.save(optimizerArchive);
  archive.write(kOptimizer, optimizerArchive);
  archive.write(kRandom, generatorState(c10::Device(c10::kCPU)));
  const c10::Device device = deviceOf(model);
  if (device.is_cuda()) archive.write(kCudaRandom, generatorState(device));
  saveArchive(archive, path);
}

void moveOptimizerState(torch::optim::Optimizer& optimizer, const c10::Device& device) {
  auto move = [&](const torch::Tensor& t) { return t.defined() ? t.to(device) : t; };
  for (auto& entry : optimizer.state()) {
    if (auto* adam = dynamic_cast<torch::optim::AdamParamState*>(entry.second.get())) {
      adam->exp_avg(move(adam->exp_avg()));
      adam->exp_avg_sq(move(adam->exp_avg_sq()));
      adam->max_exp_avg_sq(move(adam->max_exp_avg_sq()));
    }
  }
}

TrainingState restoreCheckpoint(torch::serialize::InputArchive& archive, const std::string& path,
                                torch::optim::Optimizer& optimizer, const c10::Device& device) {
  c10::IValue stateValue;
  if (!archive.try_read(kState, stateValue) || !stateValue.isString())
    throw InputError("cannot resume from " + path + ": it holds weights but no training state");
  TrainingState state;
  try {
    state = TrainingState::fromText(stateValue.toStringRef());
  } catch (const InputError& e) {
    throw InputError("cannot resume from " + path + ": " + e.what());
  }
  torch::serialize::InputArchive optimizerArchive;
  torch::Tensor random;
  try {
    if (!archive.try_read(kOptimizer, optimizerArchive)) throw InputError("");
    optimizer.load(optimizerArchive);
    if (!archive.try_read(kRandom, random)) throw InputError("");
  } catch (const std::exception&) {
    throw InputError("cannot resume from " + path + ": its optimizer or random state is missing or corrupt");
  }
  moveOptimizerState(optimizer, device);
  setGeneratorState(c10::Device(c10::kCPU), random);
  torch::Tensor cudaRandom;
  if (device.is_cuda() && archive.try_read(kCudaRandom, cudaRandom)) setGeneratorState(device, cudaRandom);
  return state;
}

}  // namespace nmt
