#pragma once

#include "util/OptionTable.h"
#include "util/Runtime.h"

namespace nmt {

// --threads, --device, --precision: declared once, for every program that runs a model and nmt.train.
void declareRuntimeOptions(OptionTable& table, RuntimeOptions& options);

namespace help {  // the texts Python's Translator shares (its threads: None rather than 0)
inline constexpr const char* kDevice = "auto, cpu, cuda or cuda:N";
inline constexpr const char* kPrecision = "fp32, or on CUDA bf16 or fp16: matrix work in 16 bits (autocast), fp32 weights";
}  // namespace help

}  // namespace nmt
