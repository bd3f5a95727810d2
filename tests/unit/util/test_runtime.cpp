#include "DeviceTestSupport.h"
#include "TestSupport.h"
#include "util/BlasKernels.h"
#include "util/HostWaitCounter.h"
#include "util/Precision.h"
#include "util/Runtime.h"
#include "util/Threads.h"
#include "util/StepGraph.h"
#include "util/TensorBlockCache.h"
#include "util/TorchCompat.h"

#include <c10/core/CPUAllocator.h>
#include <doctest/doctest.h>
#include <torch/torch.h>

#include <fstream>
#include <iterator>
#include <regex>

using namespace nmt;
using test::errorOf;

TEST_CASE("oneDNN's ISA limit: which instruction sets from AVX512_CORE_VNNI up it allows") {
  CHECK(oneDnnIsaAllows(nullptr, "AVX512_CORE_BF16"));
  CHECK(oneDnnIsaAllows("", "AVX512_CORE_AMX"));
  CHECK(oneDnnIsaAllows("all", "AVX512_CORE_AMX"));
  CHECK(oneDnnIsaAllows("AVX512_CORE_BF16", "AVX512_CORE_BF16"));
  CHECK(oneDnnIsaAllows("avx512_core_amx", "AVX512_CORE_VNNI"));
  CHECK_FALSE(oneDnnIsaAllows("AVX512_CORE_VNNI", "AVX512_CORE_BF16"));
  CHECK_FALSE(oneDnnIsaAllows("AVX2", "AVX512_CORE_VNNI"));
  CHECK_FALSE(oneDnnIsaAllows("AVX512_CORE", "AVX512_CORE_BF16"));
}

TEST_CASE("threads: float32 training shares the cores with LibTorch's pool only where libgomp's idle threads sleep") {
  CHECK(idleThreadsSleep("passive"));
  CHECK(idleThreadsSleep(" PASSIVE"));
  CHECK_FALSE(idleThreadsSleep(nullptr));
  CHECK_FALSE(idleThreadsSleep(""));
  CHECK_FALSE(idleThreadsSleep("active"));
  CHECK_FALSE(idleThreadsSleep("passive-ish"));
  CHECK_FALSE(idleThreadsSleep("pas sive"));  // libgomp would not take it, so its threads would spin
  CHECK(idleThreadsSleep("passive\n"));
  CHECK(matrixWorkFor(false, true, "passive") == MatrixWork::kOpenBlasSharingCores);
  CHECK(matrixWorkFor(false, true, nullptr) == MatrixWork::kOpenBlas);
  CHECK(matrixWorkFor(false, true, "ACTIVE") == MatrixWork::kOpenBlas);
  CHECK(matrixWorkFor(false, false, "passive") == MatrixWork::kOpenBlas);  // translation, or training on a GPU
  CHECK(matrixWorkFor(true, true, "passive") == MatrixWork::kOneDnn);
  CHECK(matrixWorkFor(true, true, nullptr) == MatrixWork::kOneDnn);
  if (openBlasThreads() > 0) {
    const int saved = openBlasThreads();
    configureThreads(2, MatrixWork::kOpenBlasSharingCores);
    CHECK(at::get_num_threads() == 2);
    CHECK(describeThreads() == "threads: LibTorch intra-op 2, OpenBLAS threads 2");
    configureThreads(saved);
    CHECK(at::get_num_threads() == 1);
    CHECK(openBlasThreads() == saved);
  }
}

TEST_CASE("threads: float32 training on the CPU restarts with its idle threads asleep unless the user chose") {
  using Variables = std::vector<std::pair<std::string, std::string>>;
  const Variables both{{"OMP_WAIT_POLICY", "passive"}, {"OPENBLAS_THREAD_TIMEOUT", "4"}};
  RuntimeOptions cpu2;
  cpu2.device = "cpu";
  cpu2.threads = 2;
  CHECK(sleepingIdleThreadsEnvironment(cpu2, nullptr, nullptr) == both);
  CHECK(sleepingIdleThreadsEnvironment(cpu2, nullptr, "100") == Variables{{"OMP_WAIT_POLICY", "passive"}});
  CHECK(sleepingIdleThreadsEnvironment(cpu2, "active", nullptr).empty());   // the user's choice
  CHECK(sleepingIdleThreadsEnvironment(cpu2, "passive", nullptr).empty());  // already restarted, or set
  CHECK(sleepingIdleThreadsEnvironment(cpu2, "", nullptr).empty());
  auto with = [&](auto change) {
    RuntimeOptions options = cpu2;
    change(options);
    return sleepingIdleThreadsEnvironment(options, nullptr, nullptr);
  };
  CHECK(with([](RuntimeOptions& o) { o.threads = 1; }).empty());
  CHECK(with([](RuntimeOptions& o) { o.threads = 0; }) == (matrixThreads() > 1 ? both : Variables{}));
  CHECK(with([](RuntimeOptions& o) { o.device = "cuda"; }).empty());
  CHECK(with([](RuntimeOptions& o) { o.device = "tpu"; }).empty());  // startRuntime refuses it
  CHECK(with([](RuntimeOptions& o) { o.precision = "fp8"; }).empty());
  CHECK(with([](RuntimeOptions& o) { o.precision = "bf16"; }).empty());  // oneDNN's, or refused
  CHECK(with([](RuntimeOptions& o) { o.precision = "auto"; }) == (cpuBf16Instructions().empty() ? both : Variables{}));
  CHECK(with([](RuntimeOptions& o) { o.device = "auto"; }) == (torch::cuda::is_available() ? Variables{} : both));
}

TEST_CASE("precision: names, where each runs, and an autocast scope that restores what it found") {
  CHECK(parsePrecision("fp32") == Precision::kFp32);
  CHECK(parsePrecision("bf16") == Precision::kBf16);
  CHECK(parsePrecision("fp16") == Precision::kFp16);
  CHECK(precisionName(Precision::kFp16) == "fp16");
  CHECK(errorOf([] { parsePrecision("fp8"); }) == "precision must be fp32, bf16, fp16 or auto, not 'fp8'");
  CHECK(errorOf([] { checkPrecisionName("auto"); }).empty());
  CHECK(errorOf([] { checkPrecisionName("bf16"); }).empty());
  CHECK(errorOf([] { checkPrecisionName("Auto"); }) == "precision must be fp32, bf16, fp16 or auto, not 'Auto'");
  const c10::Device cpu(c10::kCPU), cuda(c10::kCUDA, 0);
  for (const auto use : {ModelUse::kTraining, ModelUse::kTranslation}) {
    CHECK(errorOf([&] { checkPrecisionDevice(Precision::kFp32, cpu, use); }).empty());
    CHECK(errorOf([&] { checkPrecisionDevice(Precision::kFp16, cuda, use); }).empty());
    CHECK(errorOf([&] { checkPrecisionDevice(Precision::kBf16, cuda, use); }).empty());
    CHECK(errorOf([&] { checkPrecisionDevice(Precision::kFp16, cpu, use); }) ==
          "precision fp16 needs a CUDA device (on cpu the model runs in fp32)");
    CHECK(settlePrecision("auto", cuda, use) == Precision::kFp32);
  }
  CHECK(errorOf([&] { checkPrecisionDevice(Precision::kBf16, cpu, ModelUse::kTranslation); }) ==
        "precision bf16 needs a CUDA device to translate (on the CPU bf16 is for training)");
  CHECK(settlePrecision("auto", cpu, ModelUse::kTranslation) == Precision::kFp32);
  // float32 keeps the allocator it found (glibc's heap: cacheTensorBlocks is for bf16)
  at::Allocator* const before = c10::GetCPUAllocator();
  CHECK(startRuntime(RuntimeOptions{"cpu", 0, "fp32"}, ModelUse::kTraining).precision == Precision::kFp32);
  CHECK(c10::GetCPUAllocator() == before);

  // bf16 training on the CPU: where it has the instructions, whatever machine runs this
  const std::string instructions = cpuBf16Instructions();
  const std::string cpuFlags = test::readFile("/proc/cpuinfo");
  const bool hasBf16 = cpuFlags.find(" avx512_bf16") != std::string::npos || cpuFlags.find(" amx_bf16") != std::string::npos;
  const auto [variable, limit] = oneDnnIsaLimit();
  CHECK(instructions.empty() == (!hasBf16 || !oneDnnIsaAllows(limit, "AVX512_CORE_BF16")));
  if (instructions.empty()) {
    const std::string why = hasBf16 ? variable + "=" + limit + " keeps oneDNN off them"
                                    : "this " + cpuModelName() + " has neither";
    CHECK(errorOf([&] { checkPrecisionDevice(Precision::kBf16, cpu, ModelUse::kTraining); }) ==
          "precision bf16 needs a CUDA device or a CPU with AVX-512 BF16 or AMX instructions (" + why +
              "; precision auto trains in fp32 here)");
    CHECK(settlePrecision("auto", cpu, ModelUse::kTraining) == Precision::kFp32);
  } else {
    CHECK(errorOf([&] { checkPrecisionDevice(Precision::kBf16, cpu, ModelUse::kTraining); }).empty());
    CHECK(settlePrecision("auto", cpu, ModelUse::kTraining) == Precision::kBf16);
    const Runtime runtime = startRuntime(RuntimeOptions{"cpu", 0, "auto"}, ModelUse::kTraining);
    CHECK(runtime.precision == Precision::kBf16);
    CHECK(dynamic_cast<TensorBlockCache*>(c10::GetCPUAllocator()) != nullptr);
    CHECK(runtime.kernelLine.rfind("matrix products in bf16: oneDNN (" + instructions + "), the rest ", 0) == 0);
    if (openBlasThreads() > 0) {
      CHECK(at::get_num_threads() == openBlasThreads());  // oneDNN's threads: LibTorch's pool
      configureThreads(0);
      CHECK(at::get_num_threads() == 1);
    }
  }

  // The scope works per device type; the CPU's autocast shows it without a GPU.
  const auto a = torch::rand({4, 4}), b = torch::rand({4, 4});
  {
    const AutocastScope fp32(c10::Device(c10::kCPU), Precision::kFp32);
    CHECK((torch::mm(a, b).scalar_type() == torch::kFloat));
  }
  {
    const AutocastScope bf16(c10::Device(c10::kCPU), Precision::kBf16);
    CHECK(compat::autocastEnabled(c10::DeviceType::CPU));
    CHECK((torch::mm(a, b).scalar_type() == torch::kBFloat16));
    CHECK((torch::log_softmax(a, 1).scalar_type() == torch::kFloat));
  }
  CHECK_FALSE(compat::autocastEnabled(c10::DeviceType::CPU));
  CHECK((torch::mm(a, b).scalar_type() == torch::kFloat));
}

TEST_CASE("host waits: LibTorch's wait warnings are counted, not printed; other warnings go on as before") {
  struct Collected final : compat::TextWarningHandler {
    std::vector<std::string> texts;
    bool take(const std::string& text) override {
      texts.push_back(text);
      return true;
    }
  } before;
  {
    const HostWaitCounter counter;
    TORCH_WARN(HostWaitCounter::kWarning);
    TORCH_WARN("something else");
    TORCH_WARN(HostWaitCounter::kWarning);
    CHECK(counter.waits() == 2);
  }
  TORCH_WARN(HostWaitCounter::kWarning);  // the counter gone, its handler is the one before again
  CHECK(before.texts == std::vector<std::string>{"something else", HostWaitCounter::kWarning});
}

TEST_CASE("step graph: off a GPU the work runs its warm-ups, then once a run") {
  auto total = torch::zeros({1});
  int calls = 0;
  StepGraph graph(
      [&] {
        total.add_(1);
        ++calls;
      },
      c10::Device(c10::kCPU), 3);
  CHECK_FALSE(graph.captured());
  CHECK((graph.whyNotCaptured() == "not on a GPU" || graph.whyNotCaptured() == "this build has no CUDA"));
  CHECK(calls == 3);
  graph.run();
  graph.run();
  CHECK(calls == 5);
  CHECK(total.item<float>() == 5.0f);
}

TEST_CASE("CUDA: a step graph replays its captured work on the same buffers, its host code run no more") {
  NMT_REQUIRE_CUDA();
  auto total = torch::zeros({4}, torch::TensorOptions().device(test::kCudaDevice));
  int calls = 0;
  StepGraph graph(
      [&] {
        total.add_(torch::ones_like(total) * 2);
        ++calls;
      },
      test::kCudaDevice, 2);
  INFO(graph.whyNotCaptured());
  REQUIRE(graph.captured());
  CHECK(calls == 3);  // 2 warm-ups, then the capture, which records the kernels without running them
  CHECK(torch::equal(total.cpu(), torch::full({4}, 4.0f)));
  for (int k = 0; k < 3; ++k) graph.run();
  CHECK(calls == 3);
  CHECK(torch::equal(total.cpu(), torch::full({4}, 10.0f)));
}

TEST_CASE("this machine: LibTorch's BLAS is named, OpenBLAS with its version, kernel set and threads") {
  std::ifstream mapsFile("/proc/self/maps");
  const std::string maps{std::istreambuf_iterator<char>(mapsFile), std::istreambuf_iterator<char>()};
  REQUIRE_FALSE(maps.empty());
  const auto kernels = currentMatrixKernels();
  MESSAGE(describeMatrixKernels(kernels));
  const auto at = maps.find("/libopenblas");  // e.g. /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so
  if (at == std::string::npos) {
    CHECK(kernels.library == "not OpenBLAS (LibTorch's own or another BLAS)");
    CHECK(kernels.coreName.empty());
    CHECK(kernels.threads == 0);
    return;
  }
  const std::string library = maps.substr(at + 1, maps.find('\n', at) - at - 1);
  INFO("OpenBLAS mapped from " << library);
  std::smatch version;
  if (std::regex_search(library, version, std::regex("-r([0-9]+\\.[0-9]+\\.[0-9]+)\\.so")))
    CHECK(kernels.library == "OpenBLAS " + version[1].str());  // the version its file is named by
  else
    CHECK(std::regex_match(kernels.library, std::regex("OpenBLAS [0-9]+\\.[0-9]+.*")));
  CHECK(std::regex_match(kernels.coreName, std::regex("[A-Za-z][A-Za-z0-9]*")));
  const char* threads = std::getenv("OPENBLAS_NUM_THREADS");  // 1 under CTest
  if (threads && std::atoi(threads) > 0)
    CHECK(kernels.threads == std::atoi(threads));
  else
    CHECK(kernels.threads >= 1);
  CHECK(describeMatrixKernels(kernels).rfind("matrix kernels: " + kernels.library + ", " + kernels.coreName + ", ", 0) == 0);
}
