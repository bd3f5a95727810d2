// Translation speed of a trained model directory: batched greedy and beam search over a test
// set (sentences/s, target tokens/s; on a CPU also with as many batches at once as threads),
// batch-1 greedy latency (p50/p95) and peak memory.
//   nmt-bench-translate --model DIR --input test.de [--threads N] [--beam 5] [--latency 200]
//                       [--shortlist on] [--int8 on] [--profile]
#include "BenchThreads.h"
#include "OpProfile.h"
#include "PeakMemory.h"
#include "common/AppMain.h"
#include "common/SharedOptions.h"
#include "decode/Translator.h"
#include "kernels/InferenceLinear.h"
#include "util/BlasKernels.h"
#include "util/Device.h"
#include "util/HeapReuse.h"
#include "util/Stopwatch.h"
#include "util/TextLineReader.h"
#include "util/Threads.h"

#include <fmt/core.h>

#include <algorithm>

namespace po = boost::program_options;
using namespace nmt;

namespace {

void throughput(TranslationModel& model, const std::vector<std::string>& sentences, const DecodingOptions& decoding,
                int64_t beam, std::size_t batchSize, std::size_t parallelBatches) {
  TranslatorOptions options;
  options.decoding = decoding;
  options.text = text::TextOptions::none();  // the decoder's work on the lines as written
  options.decoding.beamSize = beam;
  options.batchSize = batchSize;
  options.parallelBatches = parallelBatches;
  Translator translator(model, options);
  const Stopwatch watch;
  const auto out = translator.translate(sentences);
  const double s = watch.seconds();
  std::size_t tokens = 0;
  for (const auto& t : out)
    if (!t.hypotheses.empty()) tokens += t.best().ids.size() + 1;
  const std::string at = parallelBatches > 1 ? fmt::format(", {} at once", parallelBatches) : "";
  fmt::print("  {:<30} {:>7.2f} s  {:>7.1f} sentences/s  {:>8.0f} target tokens/s\n",
             beam == 1 ? fmt::format("greedy (batch {}{})", batchSize, at) : fmt::format("beam {}{}", beam, at), s,
             sentences.size() / s, tokens / s);
}

// Greedy and beam search once each under LibTorch's profiler, one batch at a time: operators by self time.
void profile(TranslationModel& model, const std::vector<std::string>& sentences, const DecodingOptions& decoding,
             int64_t beam, std::size_t batchSize) {
  for (const int64_t k : {int64_t{1}, beam}) {
    TranslatorOptions options;
    options.decoding = decoding;
  options.text = text::TextOptions::none();  // the decoder's work on the lines as written
    options.decoding.beamSize = k;
    options.batchSize = batchSize;
    options.parallelBatches = 1;
    Translator translator(model, options);
    fmt::print("  LibTorch's operators, {} (batch {}, one at a time):\n{}", k == 1 ? "greedy" : fmt::format("beam {}", k),
               batchSize, profileOperators([&] { translator.translate(sentences); }, 25));
  }
}

void latency(TranslationModel& model, const std::vector<std::string>& sentences, const DecodingOptions& decoding,
             std::size_t count) {
  TranslatorOptions options;
  options.decoding = decoding;
  options.text = text::TextOptions::none();  // the decoder's work on the lines as written
  Translator translator(model, options);
  std::vector<double> ms;
  for (std::size_t i = 0; i < std::min(count, sentences.size()); ++i) {
    const Stopwatch watch;
    translator.translate({sentences[i]});
    ms.push_back(1000.0 * watch.seconds());
  }
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[static_cast<std::size_t>(p * (ms.size() - 1))]; };
  fmt::print("  {:<30} p50 {:.1f} ms  p95 {:.1f} ms  (over {} sentences)\n", "greedy, batch 1", pct(0.5), pct(0.95),
             ms.size());
}

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain("nmt-bench-translate", [&] {
    std::string modelDir, input;
    std::vector<int> threads;
    int intraOp;
    int64_t beam;
    std::size_t latencyCount, batchSize;
    bool systemMalloc = false, profiling = false;
    DecodingOptions decoding;
    OptionTable fast("Less arithmetic per piece");
    app::ModelOptions modelOptions;
    app::declareModelOptions(fast, modelOptions);
    po::options_description desc("Benchmark options");
    desc.add_options()("model", po::value(&modelDir)->required(), "model directory")(
        "input", po::value(&input)->required(), "sentences to translate (e.g. test_2016_flickr.de)")(
        "threads", po::value(&threads)->multitoken()->default_value({1, 2}, "1 2"), "thread counts to measure")(
        "intra-op", po::value(&intraOp)->default_value(1),
        "LibTorch's intra-op threads beside OpenBLAS's (the programs use 1; others to measure the alternatives)")(
        "beam", po::value(&beam)->default_value(5), "beam size to measure besides greedy")(
        "batch-size", po::value(&batchSize)->default_value(64), "sentences per batch (greedy and beam)")(
        "latency", po::value(&latencyCount)->default_value(200), "sentences for the batch-1 latency")(
        "profile", po::bool_switch(&profiling),
        "instead of timing: greedy and beam search once each under LibTorch's profiler, operators by self time")(
        "system-malloc", po::bool_switch(&systemMalloc),
        "leave glibc's allocator as it is (big blocks mmap()ed and returned each time): the figure before reuseFreedMemory");
    desc.add(fast.description());
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-bench-translate", "nmt-bench-translate --model DIR --input FILE", argc, argv, desc,
                               {}, vm))
      return 0;
    if (!systemMalloc) reuseFreedMemory();
    auto model = app::loadModelFor(modelOptions, modelDir, Runtime{});
    const auto sentences = readLines(input);
    fmt::print("{} sentences from {}; model {} ({} encoder, {} decoder, {:.1f} M parameters); shortlist {}, int8 {}\n",
               sentences.size(), input, modelDir, model.model->config().encoder, model.model->config().decoder,
               model.model->parameterCount() / 1e6, model.shortlist ? "on" : "off", model.int8 ? "on" : "off");
    for (int n : threads) {
      const std::string threadInfo = configureBenchThreads(n, intraOp);
      fmt::print("--threads {} ({}); {}; translation's fp32 products: {}; CPU: {}\n", n, threadInfo,
                 describeMatrixKernels(currentMatrixKernels()), describeFloatProducts(), cpuModelName());
      // one batch at a time on all of OpenBLAS's threads; then as many batches at once, one thread each
      std::vector<std::size_t> parallel{1};
      if (model.device.is_cpu() && openBlasThreads() > 1) parallel.push_back(openBlasThreads());
      if (profiling) {
        profile(model, sentences, decoding, beam, batchSize);
        continue;
      }
      for (std::size_t p : parallel) {
        throughput(model, sentences, decoding, 1, batchSize, p);
        throughput(model, sentences, decoding, beam, batchSize, p);
      }
      latency(model, sentences, decoding, latencyCount);
    }
    fmt::print("peak resident memory: {:.0f} MiB\n", peakResidentMiB());
    return 0;
  });
}
