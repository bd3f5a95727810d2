#pragma once

#include <functional>
#include <string>

namespace nmt {

// Runs `work` under LibTorch's profiler and returns a table of its operators by self CPU time (time in
// the operator less the operators it called), the `top` largest: where the time of LibTorch's own
// work goes, op by op. Time outside any operator (OpenBLAS called from an operator counts as the
// operator's) is the rest of the total. CPU work only.
std::string profileOperators(const std::function<void()>& work, std::size_t top);

}  // namespace nmt
