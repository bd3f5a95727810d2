#include "util/BlasKernels.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace nmt {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// OpenBLAS's x86-64 core names by the widest vector instructions their kernels use:
// 0 SSE, 1 AVX, 2 AVX2 + FMA, 3 AVX-512.
int kernelLevel(const std::string& coreName) {
  static const std::map<std::string, int> levels = {
      {"prescott", 0},   {"core2", 0},      {"penryn", 0},      {"dunnington", 0}, {"nehalem", 0},
      {"atom", 0},       {"opteron", 0},    {"barcelona", 0},   {"bobcat", 0},     {"katmai", 0},
      {"coppermine", 0}, {"northwood", 0},  {"banias", 0},      {"nano", 0},       {"sandybridge", 1},
      {"bulldozer", 1},  {"piledriver", 1}, {"steamroller", 1}, {"excavator", 1},  {"haswell", 2},
      {"zen", 2},        {"skylakex", 3},   {"cooperlake", 3},  {"sapphirerapids", 3}};
  const auto it = levels.find(lower(coreName));
  return it == levels.end() ? -1 : it->second;
}

template <typename Fn>
Fn blasSymbol(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

CpuFeatures detectCpuFeatures() {
  CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  f.avx = __builtin_cpu_supports("avx");
  f.avx2 = __builtin_cpu_supports("avx2");
  f.fma = __builtin_cpu_supports("fma");
  f.avx512f = __builtin_cpu_supports("avx512f");
  f.avx512vnni = __builtin_cpu_supports("avx512vnni");
  f.avx512bf16 = __builtin_cpu_supports("avx512bf16");
  f.amxbf16 = __builtin_cpu_supports("amx-bf16");
#endif
  return f;
}

std::pair<std::string, const char*> oneDnnIsaLimit() {
  for (const char* name : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"})
    if (const char* value = std::getenv(name); value && *value) return {name, value};
  return {"", nullptr};
}

bool oneDnnIsaAllows(const char* limit, const std::string& isa) {
  if (!limit || !*limit) return true;
  std::string upper(limit);
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.rfind("ALL", 0) == 0 || upper.rfind("DEFAULT", 0) == 0) return true;
  static const char* const kAscending[] = {"AVX512_CORE_VNNI", "AVX512_CORE_BF16", "AVX512_CORE_FP16",
                                           "AVX512_CORE_AMX"};
  int limitRank = -1, isaRank = -1;
  for (int i = 0; i < 4; ++i) {
    if (upper.rfind(kAscending[i], 0) == 0) limitRank = i;
    if (isa == kAscending[i]) isaRank = i;
  }
  return limitRank >= 0 && isaRank >= 0 && isaRank <= limitRank;
}

std::string cpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      std::string name = line.substr(line.find(':') + 1);
      name.erase(0, name.find_first_not_of(" \t"));
      return name;
    }
  return "unknown CPU";
}

std::string strongestKernelFamily(const CpuFeatures& f) {
  if (f.avx512f && f.avx2 && f.fma) return "SkylakeX";
  if (f.avx2 && f.fma) return "Haswell";
  if (f.avx) return "Sandybridge";
  return "";
}

bool isWeakerKernelSet(const std::string& coreName, const std::string& family) {
  const int have = kernelLevel(coreName), could = kernelLevel(family);
  return have >= 0 && could >= 0 && have < could;
}

MatrixKernels currentMatrixKernels() {
  MatrixKernels k;
  const auto config = blasSymbol<char* (*)()>("openblas_get_config");
  const auto corename = blasSymbol<char* (*)()>("openblas_get_corename");
  const auto threads = blasSymbol<int (*)()>("openblas_get_num_threads");
  if (!config) {
    k.library = "not OpenBLAS (LibTorch's own or another BLAS)";
    return k;
  }
  // "OpenBLAS 0.3.21 NO_AFFINITY Haswell MAX_THREADS=64": the first two words
  std::istringstream words(config());
  std::string name, version;
  words >> name >> version;
  k.library = name + (version.empty() ? "" : " " + version);
  if (corename) k.coreName = corename();
  if (threads) k.threads = threads();
  return k;
}

std::string describeMatrixKernels(const MatrixKernels& k) {
  std::string text = "matrix kernels: " + k.library;
  if (!k.coreName.empty()) text += ", " + k.coreName;
  if (k.threads > 0) text += ", " + std::to_string(k.threads) + (k.threads == 1 ? " thread" : " threads");
  return text;
}

std::string kernelHint(const MatrixKernels& k, const CpuFeatures& features) {
  const std::string family = strongestKernelFamily(features);
  if (k.coreName.empty() || family.empty() || !isWeakerKernelSet(k.coreName, family)) return "";
  const char* set = std::getenv("OPENBLAS_CORETYPE");
  return "hint: OpenBLAS runs its " + k.coreName + " kernels, but this CPU allows " + family +
         (set && *set ? " (OPENBLAS_CORETYPE=" + std::string(set) + " is set)" : " (OPENBLAS_CORETYPE is not set)") +
         "; see whether OPENBLAS_CORETYPE=" + family + " is faster and right here (OPENBLAS_CORETYPE=" + family +
         " nmt-bench-model --kernels) before using it";
}

}  // namespace nmt
