#include "util/RuntimeOptionTable.h"

namespace nmt {

void declareRuntimeOptions(OptionTable& table, RuntimeOptions& options) {
  table.add("threads", options.threads,
            "OpenBLAS threads for matrix work, LibTorch's own at 1 (0: OpenBLAS's default, all cores)");
  table.add("device", options.device, "auto, cpu, cuda or cuda:N");
  table.add("precision", options.precision,
            "fp32, or on CUDA bf16 or fp16: matrix work in 16 bits (autocast), fp32 weights");
}

}  // namespace nmt
