#pragma once

#include "parallel/WorkerGroup.h"
#include "train/TrainingPeers.h"

#include <chrono>
#include <memory>

namespace nmt::parallel {

// The Trainer's peers over a c10d process group, Gloo or NCCL (see WorkerGroup, GradientSync).
class DataParallelPeers : public TrainingPeers {
 public:
  explicit DataParallelPeers(std::unique_ptr<WorkerGroup> group) : group_(std::move(group)) {}

  int rank() const override { return group_->rank(); }
  int size() const override { return group_->size(); }
  std::string transport() const override { return "c10d " + group_->backend(); }
  std::vector<double> syncGradients(const std::vector<at::Tensor>& parameters, int64_t localTokens,
                                    const std::vector<double>& scalars) override;
  std::vector<double> sum(const std::vector<double>& values) override;
  void broadcastParameters(const std::vector<at::Tensor>& parameters) override;
  void barrier() override { group_->barrier(); }

 private:
  std::unique_ptr<WorkerGroup> group_;
};

}  // namespace nmt::parallel
