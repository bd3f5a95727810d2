#include "train/Checkpoint.h"

#include "util/AtomicFile.h"
#include "util/InputError.h"

#include <ATen/CPUGeneratorImpl.h>

#include <mutex>

namespace nmt {
namespace {

const char* const kState = "training/state";
const char* const kOptimizer = "training/optimizer";
const char* const kRandom = "training/cpu_generator";

}  // namespace

void saveCheckpoint(const std::string& path, Seq2Seq& model, torch::optim::Optimizer& optimizer,
                    const TrainingState& state) {
  torch::serialize::OutputArchive archive;
  writeModel(archive, model);
  archive.write(kState, c10::IValue(state.toText()));
  torch::serialize::OutputArchive optimizerArchive;
  optimizer.save(optimizerArchive);
  archive.write(kOptimizer, optimizerArchive);
  auto generator = at::detail::getDefaultCPUGenerator();
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    archive.write(kRandom, generator.get_state());
  }
  replaceFileAtomically(path, [&](const std::string& tmp) { archive.save_to(tmp); });
}

TrainingState restoreCheckpoint(torch::serialize::InputArchive& archive, const std::string& path,
                                torch::optim::Optimizer& optimizer) {
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
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(random);
  return state;
}

}  // namespace nmt
