#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

// What the Trainer knows of other processes training the same model (data parallelism): which
// rows of each global batch are its own, how its gradients become the global batch's, and whether
// it is the one that writes files. One process alone is the plain case (SoloTraining).
class TrainingPeers {
 public:
  virtual ~TrainingPeers() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool writesFiles() const { return rank() == 0; }
  // How the workers talk ("c10d gloo", "c10d nccl"); empty alone.
  virtual std::string transport() const { return ""; }

  // Averages the gradients over the workers, weighting each by its target tokens (each worker's
  // loss being the mean over its own). Returns the global token count, then the sums of `scalars`.
  virtual std::vector<double> syncGradients(const std::vector<at::Tensor>& parameters, int64_t localTokens,
                                            const std::vector<double>& scalars) = 0;
  // Sums of small figures over the workers (rank 0's validation result, stop decisions).
  virtual std::vector<double> sum(const std::vector<double>& values) = 0;
  // Rank 0's values of the parameters on every worker.
  virtual void broadcastParameters(const std::vector<at::Tensor>& parameters) = 0;
  // Returns once every worker has called it (e.g. after rank 0 has written files the others read).
  virtual void barrier() = 0;
};

class SoloTraining : public TrainingPeers {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<double> syncGradients(const std::vector<at::Tensor>&, int64_t localTokens,
                                    const std::vector<double>& scalars) override {
    std::vector<double> out{static_cast<double>(localTokens)};
    out.insert(out.end(), scalars.begin(), scalars.end());
    return out;
  }
  std::vector<double> sum(const std::vector<double>& values) override { return values; }
  void broadcastParameters(const std::vector<at::Tensor>&) override {}
  void barrier() override {}
};

}  // namespace nmt
