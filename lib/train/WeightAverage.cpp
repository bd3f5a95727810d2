#include "train/WeightAverage.h"

#include <algorithm>

namespace nmt {

WeightAverage::WeightAverage(const Seq2Seq& model, double decay, int64_t start) : decay_(decay), start_(start) {
  if (!enabled()) return;
  for (const auto& p : model->named_parameters()) {
    names_.push_back(p.key());
    parameters_.push_back(p.value());
  }
  startFromWeights();
}

void WeightAverage::startFromWeights() {
  torch::NoGradGuard noGrad;
  average_.clear();
  for (const auto& p : parameters_) average_.push_back(p.detach().clone());
}

double WeightAverage::decayAt(int64_t step) const {
  if (step <= start_) return 0.0;
  const auto n = static_cast<double>(step - start_ - 1);
  return std::min(decay_, (1.0 + n) / (10.0 + n));
}

void WeightAverage::update(int64_t step) {
  if (!enabled()) return;
  torch::NoGradGuard noGrad;
  const double d = decayAt(step);
  for (std::size_t i = 0; i < average_.size(); ++i) {
    if (d == 0.0) average_[i].copy_(parameters_[i]);
    else average_[i].lerp_(parameters_[i], 1.0 - d);  // d * average + (1 - d) * weights
  }
}

void WeightAverage::write(torch::serialize::OutputArchive& archive) const {
  for (std::size_t i = 0; i < average_.size(); ++i)
    archive.write(kAveragedWeightsPrefix + weightKey(names_[i]), average_[i].cpu());
}

bool WeightAverage::restore(torch::serialize::InputArchive& archive) {
  if (!enabled()) return false;
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> saved(average_.size());
  for (std::size_t i = 0; i < average_.size(); ++i) {
    if (!archive.try_read(kAveragedWeightsPrefix + weightKey(names_[i]), saved[i]) ||
        saved[i].sizes() != average_[i].sizes()) {
      startFromWeights();
      return false;
    }
  }
  for (std::size_t i = 0; i < average_.size(); ++i) average_[i].copy_(saved[i]);
  return true;
}

WeightAverage::Averaged::Averaged(WeightAverage& average) : average_(average) {
  torch::NoGradGuard noGrad;
  for (std::size_t i = 0; i < average_.average_.size(); ++i) {
    trained_.push_back(average_.parameters_[i].detach().clone());
    average_.parameters_[i].copy_(average_.average_[i]);
  }
}

WeightAverage::Averaged::~Averaged() {
  torch::NoGradGuard noGrad;
  for (std::size_t i = 0; i < trained_.size(); ++i) average_.parameters_[i].copy_(trained_[i]);
}

}  // namespace nmt
