#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <string>

namespace nmt {

// Resolves a --device choice: "auto" (CUDA if available, else CPU), "cpu", "cuda", "cuda:N".
// Throws InputError when the choice is malformed or names a GPU that is not there.
c10::Device resolveDevice(const std::string& choice);

// The GPUs LibTorch sees (0 without CUDA).
int64_t cudaDeviceCount();

}  // namespace nmt
