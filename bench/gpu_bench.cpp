// Greedy decoding on a CUDA GPU without the host in the loop (issue #60): how often the host waits for
// the device per decoder step, looking at the rows every step and every stepsBetweenChecks steps
// (DecodingOptions.h), with the pieces/s of each; then one decoder step of a full batch (the step and
// greedy search's pick) captured as a CUDA graph and replayed, against the same steps run eagerly. The
// running batch runs each way: shrinking, fixed-shape, and fixed with its steps replayed from CUDA graphs.
// Built only against a CUDA LibTorch. The shortlist and int8 stay off (float32, the whole vocabulary).
//   nmt-bench-gpu --model DIR --input test.de [--batch-size 64] [--graph-steps 200] [--device cuda]
#include "common/AppMain.h"
#include "common/SharedOptions.h"
#include "data/Batch.h"
#include "decode/ContinuousGreedySearch.h"
#include "decode/GreedyPick.h"
#include "decode/GreedySearch.h"
#include "tokenization/SpecialIds.h"
#include "util/HostWaitCounter.h"
#include "util/RuntimeOptionTable.h"
#include "util/Stopwatch.h"
#include "util/TextLineReader.h"

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <fmt/core.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>

namespace po = boost::program_options;
using namespace nmt;

namespace {

struct Sources {
  std::vector<std::vector<int>> ids;  // longest first, non-empty
};

Sources readSources(const TranslationModel& model, const std::vector<std::string>& lines) {
  Sources s;
  const auto codec = model.codec();
  for (const auto& line : lines) {
    auto ids = codec.source(line).ids;
    if (!ids.empty()) s.ids.push_back(std::move(ids));
  }
  std::stable_sort(s.ids.begin(), s.ids.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return s;
}

struct Run {
  int64_t steps = 0, waits = 0, pieces = 0;
  double seconds = 0;
};

// The running batch, as the translator drives it (a batch's worth encoded ahead): exact step count.
Run runningBatch(TranslationModel& model, const Sources& sources, std::size_t batchSize, int64_t period,
                 ContinuousGreedySearch::Shape shape) {
  const DecodeLimits limits;
  ContinuousGreedySearch search(model.model, limits, batchSize, nullptr, /*scores=*/false, period, shape);
  Run run;
  torch::cuda::synchronize();
  const Stopwatch watch;
  const HostWaitCounter waits;
  std::size_t next = 0;
  while (next < sources.ids.size() || search.live() > 0 || search.waiting() > 0) {
    if (next < sources.ids.size() && search.waiting() < batchSize) {
      const std::size_t end = std::min(sources.ids.size(), next + batchSize);
      std::vector<std::vector<int>> group(sources.ids.begin() + next, sources.ids.begin() + end);
      std::vector<std::size_t> tags(group.size());
      for (std::size_t k = 0; k < tags.size(); ++k) tags[k] = next + k;
      search.add(group, tags, std::vector<bool>(group.size(), false));
      next = end;
    }
    for (const auto& [tag, h] : search.step()) run.pieces += static_cast<int64_t>(h.ids.size()) + (h.finished ? 1 : 0);
    ++run.steps;
  }
  run.waits = waits.waits();
  torch::cuda::synchronize();
  run.seconds = watch.seconds();
  return run;
}

// Sorted batches decoded start to end: a batch's steps run to the first look at or after its longest
// row's end (a look every `period` steps, and at its last allowed step).
Run sortedBatches(TranslationModel& model, const Sources& sources, std::size_t batchSize, int64_t period) {
  DecodingOptions options;
  options.scores = false;
  options.stepsBetweenChecks = period;
  Run run;
  torch::cuda::synchronize();
  const Stopwatch watch;
  const HostWaitCounter waits;
  for (std::size_t start = 0; start < sources.ids.size(); start += batchSize) {
    std::vector<std::size_t> rows;
    for (std::size_t i = start; i < std::min(sources.ids.size(), start + batchSize); ++i) rows.push_back(i);
    const Batch batch = makeSourceBatch(sources.ids, rows, model.device);
    const auto out = greedySearch(model.model, batch, options, nullptr, nullptr);
    int64_t longestLimit = 0, longestMade = 0;
    for (std::size_t r = 0; r < out.size(); ++r) {
      const auto made = static_cast<int64_t>(out[r].ids.size()) + (out[r].finished ? 1 : 0);
      longestMade = std::max(longestMade, made);
      longestLimit = std::max(longestLimit, options.limits.maxLength(static_cast<int64_t>(sources.ids[rows[r]].size()) + 1));
      run.pieces += made;
    }
    const int64_t looked = (longestMade + period - 1) / period * period;
    run.steps += std::min(looked, longestLimit);
  }
  run.waits = waits.waits();
  torch::cuda::synchronize();
  run.seconds = watch.seconds();
  return run;
}

void printRun(const std::string& what, int64_t period, const Run& r) {
  fmt::print("  {:<34} look every {:<2}  {:>6} steps  {:>6} host waits ({:.3f} a step)  {:>7.3f} s  {:>8.0f} pieces/s\n",
             what, period, r.steps, r.waits, r.steps ? static_cast<double>(r.waits) / static_cast<double>(r.steps) : 0.0,
             r.seconds, static_cast<double>(r.pieces) / r.seconds);
  std::fflush(stdout);  // before the graph capture, which may end the program
}

// One decoder step and greedy search's pick over a full batch of the first sentences, `steps` times:
// eagerly, then captured once as a CUDA graph (state and previous pieces in fixed buffers, copied over
// in the graph) and replayed. Prints ms a step both ways and whether the pieces are the same.
void graphProbe(TranslationModel& model, const Sources& sources, std::size_t batchSize, int64_t steps) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < std::min(batchSize, sources.ids.size()); ++i) rows.push_back(i);
  const Batch batch = makeSourceBatch(sources.ids, rows, model.device);
  const auto encoded = model.model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  const DecoderMemory memory = model.model->prepareDecoder(encoded);
  const DecoderState initial = model.model->initialDecoderState(encoded).clone();
  const auto start = torch::full({static_cast<int64_t>(rows.size())}, int64_t{SpecialIds::kBos},
                                 torch::TensorOptions().dtype(torch::kInt64).device(model.device));
  auto pick = [&](const at::Tensor& previous, const DecoderState& state) {
    auto step = model.model->decodeStep(previous, state, memory, nullptr);
    auto chosen = greedyStep(step.logits, nullptr, at::Tensor(), /*logProbs=*/false);
    return std::make_pair(std::move(step.state), chosen.ids);
  };

  // eagerly
  {
    const auto [state, ids] = pick(start, initial);  // warm-up
    bool fixed = state.size() == initial.size();
    for (std::size_t i = 0; fixed && i < state.size(); ++i) fixed = state[i].sizes() == initial[i].sizes();
    if (!fixed) {
      fmt::print("  CUDA graph of a step: not tried (this decoder's state changes shape from step to step)\n");
      return;
    }
  }
  std::vector<at::Tensor> eagerIds;
  torch::cuda::synchronize();
  Stopwatch eagerWatch;
  {
    DecoderState state = initial;
    at::Tensor previous = start;
    for (int64_t t = 0; t < steps; ++t) {
      auto [nextState, ids] = pick(previous, state);
      state = std::move(nextState);
      previous = ids;
      eagerIds.push_back(ids);
    }
  }
  torch::cuda::synchronize();
  const double eagerMs = 1000.0 * eagerWatch.seconds() / static_cast<double>(steps);

  // captured: the step reads fixed buffers and writes its results back into them
  const DecoderState state = initial.clone();
  const at::Tensor previous = start.clone();
  at::Tensor chosenIds;
  auto body = [&] {
    auto [nextState, ids] = pick(previous, state);
    for (std::size_t i = 0; i < state.size(); ++i) state[i].copy_(nextState[i]);
    previous.copy_(ids);
    chosenIds = ids;
  };
  auto reset = [&] {
    for (std::size_t i = 0; i < state.size(); ++i) state[i].copy_(initial[i]);
    previous.copy_(start);
  };
  at::cuda::CUDAGraph graph;
  try {
    torch::cuda::synchronize();
    const auto side = c10::cuda::getStreamFromPool();
    {
      const c10::cuda::CUDAStreamGuard onSide(side);
      for (int k = 0; k < 3; ++k) body();  // warm-up on the capturing stream (workspaces, algorithms)
      side.synchronize();
      reset();
      side.synchronize();
      graph.capture_begin();
      body();
      graph.capture_end();
      side.synchronize();
    }
  } catch (const std::exception& e) {
    std::string why = e.what();
    why = why.substr(0, why.find('\n'));
    fmt::print("  CUDA graph of a step: capture failed: {}\n", why);
    return;
  }
  reset();
  torch::cuda::synchronize();
  Stopwatch graphWatch;
  for (int64_t t = 0; t < steps; ++t) graph.replay();
  torch::cuda::synchronize();
  const double graphMs = 1000.0 * graphWatch.seconds() / static_cast<double>(steps);
  // the same replays again, each step's pieces kept, against the eager ones
  reset();
  std::vector<at::Tensor> graphIds;
  for (int64_t t = 0; t < steps; ++t) {
    graph.replay();
    graphIds.push_back(chosenIds.clone());
  }
  const bool same = torch::equal(torch::stack(eagerIds).cpu(), torch::stack(graphIds).cpu());
  fmt::print("  one step of {} rows ({} steps): eager {:.3f} ms, CUDA graph replay {:.3f} ms ({:.2f}x); pieces {}\n",
             rows.size(), steps, eagerMs, graphMs, eagerMs / graphMs, same ? "identical" : "DIFFERENT");
}

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain("nmt-bench-gpu", [&] {
    std::string modelDir, input;
    std::size_t batchSize;
    int64_t graphSteps, lines;
    RuntimeOptions runtimeOptions;
    runtimeOptions.device = "cuda";
    OptionTable runtimeTable("Runtime");
    declareRuntimeOptions(runtimeTable, runtimeOptions);
    po::options_description desc("Benchmark options");
    desc.add_options()("model", po::value(&modelDir)->required(), "model directory")(
        "input", po::value(&input)->required(), "sentences to translate (e.g. test_2016_flickr.de)")(
        "lines", po::value(&lines)->default_value(0), "only the first N lines (0: all)")(
        "batch-size", po::value(&batchSize)->default_value(64), "sentences per batch")(
        "graph-steps", po::value(&graphSteps)->default_value(200), "steps timed eagerly and as CUDA graph replays");
    desc.add(runtimeTable.description());
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-bench-gpu", "nmt-bench-gpu --model DIR --input FILE", argc, argv, desc, {}, vm))
      return 0;
    const Runtime runtime = app::startProgram(runtimeOptions);
    if (!runtime.device.is_cuda()) {
      fmt::print(stderr, "nmt-bench-gpu: needs a CUDA device ({})\n", runtime.describe());
      return 1;
    }
    app::ModelOptions modelOptions;
    modelOptions.shortlist = "off";
    modelOptions.int8 = "off";
    auto model = app::loadModelFor(modelOptions, modelDir, runtime);
    auto lineTexts = readLines(input);
    if (lines > 0 && static_cast<std::size_t>(lines) < lineTexts.size()) lineTexts.resize(static_cast<std::size_t>(lines));
    c10::InferenceMode inference;
    const Sources sources = readSources(model, lineTexts);
    fmt::print("nmt-bench-gpu: {} sentences from {}; model {} ({} encoder, {} decoder); {}\n", sources.ids.size(),
               input, modelDir, model.model->config().encoder, model.model->config().decoder, runtime.describe());
    {  // untimed: the first batch once each way (CUDA's libraries load their kernels at first use)
      Sources first;
      first.ids.assign(sources.ids.begin(), sources.ids.begin() + static_cast<std::ptrdiff_t>(std::min(batchSize, sources.ids.size())));
      runningBatch(model, first, batchSize, 1, ContinuousGreedySearch::Shape::kFixed);
      sortedBatches(model, first, batchSize, 1);
    }
    for (const int64_t period : {int64_t{1}, stepsBetweenChecks(0, model.device.is_cpu())}) {
      using Shape = ContinuousGreedySearch::Shape;
      for (const auto& [shape, name] : {std::pair{Shape::kShrinking, "shrinking"}, std::pair{Shape::kFixed, "fixed"},
                                        std::pair{Shape::kFixedReplayed, "replayed"}})
        printRun(fmt::format("running batch of {}, {}", batchSize, name), period,
                 runningBatch(model, sources, batchSize, period, shape));
      printRun(fmt::format("sorted batches of {}", batchSize), period, sortedBatches(model, sources, batchSize, period));
    }
    graphProbe(model, sources, batchSize, graphSteps);
    return 0;
  });
}
