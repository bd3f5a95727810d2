#pragma once

#include <c10/core/Device.h>

#include <functional>
#include <memory>
#include <string>

namespace nmt {

// A piece of GPU work on fixed buffers, captured once as a CUDA graph and replayed: a decoder step
// launches dozens of small kernels, which the host queues one by one, and a graph replays them as one
// launch (2-3x faster a step on an H200: docs/gpu.md). Where the build has no CUDA, the device is not a
// GPU, or the capture fails, run() does the work itself, so callers keep one code path.
class StepGraph {
 public:
  // Runs `work` `warmups` times (on a GPU on a side stream: workspaces, algorithms; on any device, so that
  // the caller's bookkeeping around them is the same everywhere), then captures one more run without
  // doing it. The work must read and write only buffers that outlive this object and never make the host
  // wait for the device; the warm-up runs change those buffers as real runs do (save and restore them).
  StepGraph(std::function<void()> work, const c10::Device& device, int warmups = 3);
  ~StepGraph();
  StepGraph(const StepGraph&) = delete;
  StepGraph& operator=(const StepGraph&) = delete;

  void run();  // the graph replayed on the current stream, or the work done
  bool captured() const { return graph_ != nullptr; }
  const std::string& whyNotCaptured() const { return whyNot_; }

 private:
  struct Graph;
  std::function<void()> work_;
  std::unique_ptr<Graph> graph_;
  std::string whyNot_;
};

}  // namespace nmt
