#include "util/RuntimeOptionTable.h"

namespace nmt {

void declareRuntimeOptions(OptionTable& table, RuntimeOptions& options) {
  table.add("threads", options.threads,
            "OpenBLAS threads for matrix work, LibTorch's own at 1 (0: OpenBLAS's default, all cores)");
  table.add("device", options.device, help::kDevice);
  table.add("precision", options.precision, help::kPrecision);
}

}  // namespace nmt
