// How data-parallel training would scale: the gradient bytes of a model per step, Gloo's time to
// all-reduce them in flat buckets between 2 workers on loopback (ranks as threads, each with its
// own Gloo TCP pairs), and, given one process's step time (nmt-bench-model), a ring all-reduce
// model of the step time and speed-up at N workers for a fixed global batch (each worker computes
// 1/N of it) over loopback's measured bandwidth and over 10 and 1 Gbit/s networks.
//   nmt-bench-allreduce [--rounds 20] [--step-ms 1200]
#include "common/AppMain.h"
#include "parallel/GradientSync.h"
#include "model/Seq2Seq.h"
#include "util/Stopwatch.h"
#include "util/Threads.h"

#include <fmt/core.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <thread>

namespace po = boost::program_options;
using namespace nmt;

int main(int argc, char* argv[]) {
  app::runMain("nmt-bench-allreduce", [&] {
    int rounds;
    double stepMs;
    po::options_description desc("Options");
    desc.add_options()("rounds", po::value(&rounds)->default_value(20), "timed all-reduces (the median is reported)")(
        "step-ms", po::value(&stepMs)->default_value(0.0, "none"),
        "one process's training step time in ms (nmt-bench-model, rnn (tied), --threads 1): prints the scaling model");
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-bench-allreduce", "nmt-bench-allreduce [--rounds N] [--step-ms MS]", argc, argv,
                               desc, {}, vm))
      return 0;
    configureThreads(1);
    ModelConfig config;  // configs/multi30k-de-en-rnn.ini: the defaults with tied target embeddings
    config.tieTargetEmbeddings = true;
    Seq2Seq model(config);
    const auto parameters = model->parameters();
    std::size_t bytes = 0;
    for (const auto& p : parameters) bytes += static_cast<std::size_t>(p.numel()) * p.element_size();
    const auto buckets = parallel::gradientBuckets(parameters, std::size_t{25} << 20);
    fmt::print("model: rnn preset, {:.1f}M parameters, {:.1f} MB of gradients per step in {} buckets of at most 25 MB\n",
               model->parameterCount() / 1e6, bytes / 1e6, buckets.size());

    auto store = c10::make_intrusive<c10d::HashStore>();
    std::vector<double> times;
    std::vector<std::thread> workers;
    for (int rank = 0; rank < 2; ++rank)
      workers.emplace_back([&, rank] {
        parallel::WorkerGroup group(store, rank, 2, std::chrono::seconds(60));
        // each rank its own copy of the gradients, as separate processes would have
        std::vector<at::Tensor> mine;
        for (const auto& p : parameters) {
          mine.push_back(torch::zeros_like(p).set_requires_grad(true));
          mine.back().mutable_grad() = torch::ones_like(p);
        }
        for (int i = -2; i < rounds; ++i) {
          group.barrier();
          const Stopwatch watch;
          parallel::averageGradients(group, mine, 100);
          if (rank == 0 && i >= 0) times.push_back(watch.seconds());
        }
      });
    for (auto& w : workers) w.join();
    std::sort(times.begin(), times.end());
    const double t2 = times[times.size() / 2];
    // a ring all-reduce moves 2 (N - 1) / N of the bytes through each worker's link
    const double loopbackBandwidth = bytes / t2;  // N = 2: 2 * 1/2 * bytes
    fmt::print("Gloo all-reduce, 2 workers on loopback: median {:.1f} ms (min {:.1f}, max {:.1f}) = {:.2f} GB/s\n",
               t2 * 1e3, times.front() * 1e3, times.back() * 1e3, loopbackBandwidth / 1e9);
    if (stepMs <= 0.0) {
      fmt::print("(give --step-ms, one process's step time, for the scaling model)\n");
      return 0;
    }
    const double step = stepMs / 1e3;
    fmt::print("\nscaling model, fixed global batch, one process's step {:.0f} ms (compute / N + ring all-reduce):\n", stepMs);
    fmt::print("{:>8} {:>26} {:>26} {:>26}\n", "workers", "loopback-speed network", "10 Gbit/s", "1 Gbit/s");
    for (int n : {1, 2, 4, 8, 16, 32, 64}) {
      std::string row = fmt::format("{:>8}", n);
      for (double bandwidth : {loopbackBandwidth, 10e9 / 8, 1e9 / 8}) {
        const double sync = n == 1 ? 0.0 : 2.0 * (n - 1) / n * bytes / bandwidth;
        const double t = step / n + sync;
        row += fmt::format(" {:>9.0f} ms {:>5.1f}x {:>4.0f}%", t * 1e3, step / t, 100.0 * step / t / n);
      }
      fmt::print("{}\n", row);
    }
    return 0;
  });
}
