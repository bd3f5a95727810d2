#pragma once

#include "util/OptionTable.h"
#include "util/Runtime.h"

namespace nmt {

// --threads, --device, --precision: declared once, for every program that runs a model and nmt.train.
void declareRuntimeOptions(OptionTable& table, RuntimeOptions& options);

namespace help {  // the texts Python's Translator shares (its threads: None rather than 0)
inline constexpr const char* kDevice = "auto, cpu, cuda or cuda:N";
inline constexpr const char* kPrecision =
    "fp32; bf16 or fp16 on CUDA, and bf16 for training on a CPU with AVX-512 BF16 or AMX: matrix work in 16 bits "
    "(autocast), fp32 weights; auto: bf16 where a CPU trains faster in it, else fp32";
}  // namespace help

}  // namespace nmt
