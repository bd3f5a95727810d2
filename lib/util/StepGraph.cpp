#include "util/StepGraph.h"

#if NMT_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <exception>
#include <utility>

namespace nmt {

#if NMT_WITH_CUDA
struct StepGraph::Graph {
  at::cuda::CUDAGraph graph;
};
#else
struct StepGraph::Graph {};
#endif

StepGraph::StepGraph(std::function<void()> work, const c10::Device& device, int warmups) : work_(std::move(work)) {
#if NMT_WITH_CUDA
  if (device.is_cuda()) {
    auto graph = std::make_unique<Graph>();
    try {
      const c10::cuda::CUDAGuard onDevice(device);
      const auto caller = c10::cuda::getCurrentCUDAStream();
      const auto side = c10::cuda::getStreamFromPool();
      side.synchronize();
      caller.synchronize();  // the buffers as the caller left them
      {
        const c10::cuda::CUDAStreamGuard onSide(side);
        for (int k = 0; k < warmups; ++k) work_();
        graph->graph.capture_begin();
        work_();
        graph->graph.capture_end();
      }
      side.synchronize();
      graph_ = std::move(graph);
    } catch (const std::exception& e) {
      whyNot_ = e.what();
      whyNot_ = whyNot_.substr(0, whyNot_.find('\n'));
    }
    return;
  }
#endif
  (void)device;
  for (int k = 0; k < warmups; ++k) work_();
  whyNot_ = NMT_WITH_CUDA ? "not on a GPU" : "this build has no CUDA";
}

StepGraph::~StepGraph() = default;

void StepGraph::run() {
#if NMT_WITH_CUDA
  if (graph_) {
    graph_->graph.replay();
    return;
  }
#endif
  work_();
}

}  // namespace nmt
