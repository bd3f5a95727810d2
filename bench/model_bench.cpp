// Forward+backward time per batch and per target token for the default model configurations,
// at --batch-tokens 4096 on Multi30k-like lengths, with achieved GFLOP/s next to a 1024x1024
// matmul's GFLOP/s measured in the same run; --profile N adds the N operators that took the most time
// of their own (LibTorch's profiler, over as many more batches).
//   nmt-bench-model [--batches 10] [--batch-tokens 4096] [--threads 1 2] [--precision bf16] [--profile 25]
#include "BenchThreads.h"
#include "OpProfile.h"
#include "PeakMemory.h"
#include "common/AppMain.h"
#include "data/Batch.h"
#include "kernels/InferenceLinear.h"
#include "kernels/Int8Linear.h"
#include "model/Seq2Seq.h"
#include "tokenization/SpecialIds.h"
#include "train/FusedAdam.h"
#include "train/LabelSmoothedLoss.h"
#include "util/BlasKernels.h"
#include "util/HeapReuse.h"
#include "util/Precision.h"
#include "util/Stopwatch.h"
#include "util/Threads.h"

#include <fmt/core.h>
#include <torch/torch.h>

#include <cstdlib>
#include <optional>
#include <random>

namespace po = boost::program_options;
using namespace nmt;

namespace {

double matmulGflops() {
  const auto a = torch::randn({1024, 1024}), b = torch::randn({1024, 1024});
  torch::mm(a, b);
  const int reps = 20;
  const Stopwatch watch;
  for (int i = 0; i < reps; ++i) torch::mm(a, b);
  return 2.0 * 1024 * 1024 * 1024 * reps / watch.seconds() / 1e9;
}

// The largest difference between a 1024x1024 product and a plain double-precision loop, relative to
// the largest entry: about 1e-6 when the kernels compute what they should. Through LibTorch's sgemm,
// or (translation) inferenceLinear's kernels, on the configured threads or (oneThread) on one, where
// the weight is packed once for oneDNN.
double sgemmError(bool translation = false, bool oneThread = false) {
  const int64_t n = 1024;
  const auto a = torch::randn({n, n}), b = torch::randn({n, n});
  c10::InferenceMode inference(translation);
  std::optional<SingleThreadedBlas> one;
  if (oneThread) one.emplace();
  const auto c = translation ? inferenceLinear(a, b.t().contiguous(), torch::Tensor()) : torch::mm(a, b);
  const auto A = a.accessor<float, 2>(), B = b.accessor<float, 2>(), C = c.accessor<float, 2>();
  std::vector<double> row(n);
  double worst = 0.0, largest = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j) row[j] += static_cast<double>(A[i][k]) * B[k][j];
    for (int64_t j = 0; j < n; ++j) {
      worst = std::max(worst, std::abs(row[j] - C[i][j]));
      largest = std::max(largest, std::abs(row[j]));
    }
  }
  return worst / largest;
}

// --kernels: speed and correctness of the sgemm kernels OpenBLAS chose (or OPENBLAS_CORETYPE named).
int checkKernels(const std::vector<int>& threads) {
  const auto features = detectCpuFeatures();
  const std::string strongest = strongestKernelFamily(features);
  fmt::print("CPU: {}; its instruction sets allow OpenBLAS's {} kernels\n", cpuModelName(),
             strongest.empty() ? "SSE" : strongest);
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  fmt::print("OPENBLAS_CORETYPE: {}\n", coretype && *coretype ? coretype : "not set");
  fmt::print("int8 products (--int8): {}\n", describeInt8Activations());
  fmt::print("int8 products through {}\n",
             int8Products() == Int8Products::OneDnn ? "oneDNN's gemm_u8s8s32" : "LibTorch's quantized::linear_dynamic");
  fmt::print("translation's fp32 products: {}\n", describeFloatProducts());
  bool wrong = false;
  for (const bool oneThread : {false, true}) {
    const double error = sgemmError(/*translation=*/true, oneThread);
    wrong = wrong || !(error < 1e-4);
    fmt::print("  {}: largest relative error against double precision {:.1e} ({})\n",
               oneThread ? "on one thread" : "on the configured threads", error, error < 1e-4 ? "right" : "WRONG");
  }
  for (int n : threads) {
    const std::string threadInfo = configureThreads(n);
    const double error = sgemmError();
    wrong = wrong || !(error < 1e-4);
    fmt::print("{}: 1024x1024 sgemm {:.1f} GFLOP/s, largest relative error against double precision {:.1e} ({})\n",
               describeMatrixKernels(currentMatrixKernels()), matmulGflops(), error, error < 1e-4 ? "right" : "WRONG");
  }
  if (const auto hint = kernelHint(currentMatrixKernels(), features); !hint.empty()) fmt::print("{}\n", hint);
  if (wrong) fmt::print("these kernels compute wrong results: do not use them\n");
  return wrong ? 1 : 0;
}

// Sentences with Multi30k-like BPE lengths (mean ~14 pieces, target ~1.1x source).
std::vector<EncodedPair> syntheticCorpus(std::size_t n, int64_t vocab) {
  std::mt19937 rng(1);
  std::normal_distribution<double> len(14.0, 4.5);
  std::vector<EncodedPair> pairs;
  for (std::size_t i = 0; i < n; ++i) {
    const auto s = static_cast<std::size_t>(std::clamp(len(rng), 3.0, 45.0));
    const auto t = static_cast<std::size_t>(std::clamp(s * 1.1, 3.0, 50.0));
    EncodedPair p{std::vector<int>(s), std::vector<int>(t), i + 1};
    for (auto& x : p.source) x = 4 + static_cast<int>(rng() % (vocab - 4));
    for (auto& x : p.target) x = 4 + static_cast<int>(rng() % (vocab - 4));
    pairs.push_back(std::move(p));
  }
  return pairs;
}

void bench(const std::string& name, const ModelConfig& config, int batches, std::size_t batchTokens,
           Precision precision, std::size_t profile) {
  torch::manual_seed(1);
  Seq2Seq model(config);
  model->initialize();
  model->train();
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(1e-3));
  const auto pairs = syntheticCorpus(4000, config.targetVocab);
  LengthBucketBatcher batcher(batchLengths(pairs), {batchTokens, 0, 1, true});
  const auto plan = batcher.epoch(0);

  // FLOP estimate: 6 per weight per token (forward 2, backward 4), embeddings excluded;
  // encoder weights per padded source token, decoder weights per padded target token.
  int64_t encoderWeights = 0, decoderWeights = 0;
  for (const auto& p : model->named_parameters()) {
    // embeddings are lookups, except the target one when the output layer reuses it
    if (p.key().find("embedding") != std::string::npos &&
        !(config.tieTargetEmbeddings && p.key() == "decoder.embedding.weight"))
      continue;
    (p.key().rfind("encoder.", 0) == 0 ? encoderWeights : decoderWeights) += p.value().numel();
  }
  const c10::Device cpu(c10::kCPU);
  const auto batchAt = [&](int i) {
    const auto& rows = plan[static_cast<std::size_t>(i) % plan.size()];
    return makeBatch(pairs, {rows.begin(), rows.end()}, cpu);
  };
  // nmt-train's step without its bookkeeping: forward under autocast, the label-smoothed loss per token,
  // its Adam step
  const auto step = [&](const Batch& batch) {
    adam.zero_grad();
    at::Tensor loss;
    {
      const AutocastScope autocast(cpu, precision);
      const auto out = model->forward(batch);
      loss = labelSmoothedLoss(out.logits, batch.gold(), 0.1, SpecialIds::kPad).loss /
             static_cast<double>(batch.targetTokens - batch.size());
    }
    loss.backward();
    adamStep(adam);
  };
  double flops = 0.0, total = 0.0;
  std::size_t targetTokens = 0, realTokens = 0;
  for (int i = -2; i < batches; ++i) {  // two warm-up batches
    const Batch batch = batchAt(i + 2);
    const Stopwatch watch;
    step(batch);
    if (i < 0) continue;
    total += watch.seconds();
    const auto gold = batch.gold();
    targetTokens += batch.targetTokens - batch.size();  // predicted tokens (without <s>)
    realTokens += batch.sourceTokens + batch.targetTokens;
    flops += 6.0 * (static_cast<double>(encoderWeights) * batch.source.numel() +
                    static_cast<double>(decoderWeights) * gold.numel());
  }
  fmt::print("{:<14} {:>6.1f}M params  {:>7.0f} ms/batch  {:>6.3f} ms/target token  {:>6.0f} tokens/s  ~{:>5.1f} GFLOP/s\n",
             name, model->parameterCount() / 1e6, 1000.0 * total / batches, 1000.0 * total / targetTokens,
             realTokens / total, flops / total / 1e9);
  if (profile > 0) {
    std::vector<Batch> more;
    for (int i = 0; i < batches; ++i) more.push_back(batchAt(batches + 2 + i));
    fmt::print("{}", profileOperators([&] { for (const auto& batch : more) step(batch); }, profile));
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain("nmt-bench-model", [&] {
    int batches;
    std::size_t batchTokens;
    std::vector<int> threads;
    int intraOp;
    std::string only, precisionText;
    std::size_t profile = 0;
    bool systemMalloc = false, kernels = false;
    po::options_description desc("Benchmark options");
    desc.add_options()("batches", po::value(&batches)->default_value(10), "timed training steps per model")(
        "threads", po::value(&threads)->multitoken()->default_value({1, 2}, "1 2"), "thread counts to measure")(
        "only", po::value(&only)->default_value(""),
        "measure only this model: rnn-reference, rnn, transformer or transformer-full (default: all)")(
        "intra-op", po::value(&intraOp)->default_value(1),
        "LibTorch's intra-op threads beside OpenBLAS's (the programs use 1; others to measure the alternatives)")(
        "batch-tokens", po::value(&batchTokens)->default_value(4096), "token budget per batch")(
        "precision", po::value(&precisionText)->default_value("fp32"),
        "fp32, or bf16 (autocast on the CPU, as nmt-train --precision bf16; its matrix work on LibTorch's intra-op "
        "threads, which then take the --threads count)")(
        "profile", po::value(&profile)->default_value(0),
        "after each model's timing, the N operators with the most time of their own over --batches more batches")(
        "system-malloc", po::bool_switch(&systemMalloc),
        "leave glibc's allocator as it is (big blocks mmap()ed and returned each time): the figure before reuseFreedMemory")(
        "kernels", po::bool_switch(&kernels),
        "only measure the 1024x1024 sgemm and check its result against double precision (try OPENBLAS_CORETYPE=... safely)");
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-bench-model", "nmt-bench-model [--batches N]", argc, argv, desc, {}, vm)) return 0;
    if (kernels) return checkKernels(threads);
    const Precision precision = parsePrecision(precisionText);
    checkPrecisionDevice(precision, c10::Device(c10::kCPU), ModelUse::kTraining);
    if (!systemMalloc) reuseFreedMemory();
    fmt::print("CPU: {}\n", cpuModelName());

    const auto measure = [&](const std::string& name, const ModelConfig& config) {
      if (only.empty() || name.rfind(only + " ", 0) == 0 || name == only)
        bench(name, config, batches, batchTokens, precision, profile);
    };
    for (int n : threads) {
      const std::string threadInfo =
          configureBenchThreads(n, intraOp, cpuBf16(precision, c10::Device(c10::kCPU)) ? MatrixWork::kOneDnn : MatrixWork::kOpenBlas);
      fmt::print("--threads {} ({}); {}; 1024x1024 matmul: {:.1f} GFLOP/s\n", n, threadInfo,
                 describeMatrixKernels(currentMatrixKernels()), matmulGflops());
      ModelConfig reference;  // the defaults: embedding 256, bidirectional GRU 512, 8000-piece vocabularies
      measure("rnn-reference", reference);
      ModelConfig rnn = reference;  // configs/multi30k-de-en-rnn.ini
      rnn.tieTargetEmbeddings = true;
      measure("rnn (tied)", rnn);
      ModelConfig transformer = rnn;  // configs/multi30k-de-en-transformer.ini
      transformer.encoder = "transformer";
      transformer.layers = 3;
      transformer.decoderLayers = 1;
      transformer.heads = 4;
      transformer.feedForwardSize = 1024;
      measure("transformer", transformer);
      ModelConfig full = transformer;  // configs/multi30k-de-en-transformer-full.ini
      full.decoder = "transformer";
      full.decoderLayers = 3;
      full.shareEmbeddings = true;
      full.dropout = 0.2;
      measure("transformer-full", full);
    }
    fmt::print("peak resident memory: {:.0f} MiB\n", peakResidentMiB());
    fmt::print("tokens/s counts source + target tokens without padding; GFLOP/s is an estimate (6 FLOP per weight per padded token)\n");
    return 0;
  });
}
