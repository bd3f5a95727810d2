#include "DeviceTestSupport.h"
#include "TestSupport.h"
#include "data/Batch.h"
#include "data/LengthBucketBatcher.h"
#include "tokenization/BpeModel.h"
#include "tokenization/SpecialIds.h"
#include "util/Device.h"
#include "util/InputError.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

using namespace nmt;

using nmt::test::errorOf;

TEST_CASE("a batch holds padded ids, masks and lengths, longest source first") {
  std::vector<EncodedPair> pairs = {{{10, 11}, {20}, 1}, {{12, 13, 14, 15}, {21, 22, 23}, 2}, {{16}, {24, 25}, 3}};
  const Batch batch = makeBatch(pairs, {0, 1, 2}, c10::Device(c10::kCPU));
  CHECK(batch.examples == std::vector<std::size_t>{1, 0, 2});
  CHECK(batch.source.sizes() == torch::IntArrayRef({3, 5}));
  CHECK(batch.target.sizes() == torch::IntArrayRef({3, 5}));
  CHECK(batch.source.dtype() == torch::kInt64);
  const int P = SpecialIds::kPad, B = SpecialIds::kBos, E = SpecialIds::kEos;
  CHECK(torch::equal(batch.source, torch::tensor({12, 13, 14, 15, E, 10, 11, E, P, P, 16, E, P, P, P}).view({3, 5})));
  CHECK(torch::equal(batch.target, torch::tensor({B, 21, 22, 23, E, B, 20, E, P, P, B, 24, 25, E, P}).view({3, 5})));
  CHECK(torch::equal(batch.sourceLengths, torch::tensor({5, 3, 2})));
  CHECK(torch::equal(batch.targetLengths, torch::tensor({5, 3, 4})));
  CHECK(torch::equal(batch.sourceMask, batch.source.ne(P)));
  CHECK(batch.sourceMask.dtype() == torch::kBool);
  CHECK(batch.sourceTokens == 10);
  CHECK(batch.targetTokens == 12);
  // what the batcher budgets for a pair is the room it takes here
  const ExampleLength longest = batchLengthOf(pairs[1].source.size(), pairs[1].target.size());
  CHECK(longest.source == batch.source.size(1));
  CHECK(longest.target == batch.target.size(1));
}

TEST_CASE("a batch from a prepared corpus, in memory or mapped from its file, equals the batch from its pairs") {
  std::vector<EncodedPair> pairs = {{{10, 11}, {20}, 1}, {{12, 13, 14, 15}, {21, 22, 23}, 2}, {{16}, {24, 25}, 3}, {{}, {9}, 4}};
  test::TempDir dir;
  {
    PreparedCorpusWriter writer(dir.file("train.bin"), 8000, "k");
    for (const auto& p : pairs) writer.add(p.source, p.target);
    writer.commit({4, 0, 0, 4});
  }
  const auto cpu = c10::Device(c10::kCPU);
  const Batch expected = makeBatch(pairs, {3, 0, 2, 1}, cpu);
  for (const auto& corpus : {PreparedCorpus::fromPairs(pairs, {}), PreparedCorpus::open(dir.file("train.bin"))}) {
    const Batch batch = makeBatch(corpus, {3, 0, 2, 1}, cpu);
    CHECK(batch.examples == expected.examples);
    CHECK(torch::equal(batch.source, expected.source));
    CHECK(torch::equal(batch.target, expected.target));
    CHECK(torch::equal(batch.sourceLengths, expected.sourceLengths));
    CHECK(torch::equal(batch.targetMask, expected.targetMask));
    CHECK(batch.targetTokens == expected.targetTokens);
  }
}

TEST_CASE("batch tensors are on the requested device") {
  std::vector<EncodedPair> pairs = {{{5, 6}, {7}, 1}};
  const auto device = resolveDevice("cpu");
  const Batch batch = makeBatch(pairs, {0}, device);
  for (const auto& t : {batch.source, batch.sourceMask, batch.target, batch.targetMask}) CHECK(t.device() == device);
  // Lengths stay on the CPU whatever the device: pack_padded_sequence wants them there.
  CHECK(batch.sourceLengths.device().is_cpu());
}

TEST_CASE("CUDA: batch tensors are on the GPU, their lengths on the CPU, the same values as on the CPU") {
  NMT_REQUIRE_CUDA();
  std::vector<EncodedPair> pairs = {{{5, 6}, {7}, 1}, {{8, 9, 10}, {11, 12}, 2}};
  const auto device = resolveDevice("cuda");
  CHECK(device == test::kCudaDevice);
  const Batch gpu = makeBatch(pairs, {0, 1}, device);
  const Batch cpu = makeBatch(pairs, {0, 1}, test::kCpuDevice);
  for (const auto& t : {gpu.source, gpu.sourceMask, gpu.target, gpu.targetMask}) CHECK(t.device() == device);
  CHECK(gpu.sourceLengths.device().is_cpu());
  CHECK(gpu.targetLengths.device().is_cpu());
  CHECK(gpu.examples == cpu.examples);
  CHECK(torch::equal(gpu.source.cpu(), cpu.source));
  CHECK(torch::equal(gpu.target.cpu(), cpu.target));
  CHECK(torch::equal(gpu.sourceMask.cpu(), cpu.sourceMask));
  CHECK(torch::equal(gpu.targetMask.cpu(), cpu.targetMask));
  CHECK(torch::equal(gpu.sourceLengths, cpu.sourceLengths));
}

TEST_CASE("device choices") {
  CHECK(resolveDevice("cpu").is_cpu());
  CHECK(resolveDevice("auto") == (torch::cuda::is_available() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU)));
  CHECK(errorOf([] { resolveDevice("gpu"); }) == "invalid device 'gpu': expected auto, cpu, cuda or cuda:N");
  CHECK(errorOf([] { resolveDevice("cuda:x"); }) == "invalid device 'cuda:x': expected auto, cpu, cuda or cuda:N");
  if (!torch::cuda::is_available()) {
    CHECK(errorOf([] { resolveDevice("cuda:1"); }) ==
          "device 'cuda:1' requested but CUDA is not available (this LibTorch build has no CUDA support or no GPU is "
          "visible); use device cpu");  // the programs say --device, Python device
  }
}

TEST_CASE("SentencePiece works in a process that has LibTorch loaded") {
  // Linking both crashes before main (protobuf clash); the dlopen'ed bridge must not.
  REQUIRE(torch::ones({2, 2}).sum().item<float>() == 4.0f);
  const BpeModel bpe(test::sharedBpeModelPath());
  const std::string s = "Ein Mann fährt über die Straße.";
  CHECK(bpe.decodeIds(bpe.encodeIds(s)) == s);
}
