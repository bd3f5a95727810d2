#pragma once

#include "parallel/WorkerGroup.h"

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nmt::parallel {

// Makes every worker's gradients those of the global batch. Each worker's loss is the mean over
// its own target tokens, so its gradients are scaled by its token count, summed over the workers
// with one all-reduce per flat bucket of at most `bucketBytes` (not one per parameter tensor),
// and divided by the global token count, which rides along in the first bucket with `scalars`
// (other per-worker figures to sum, e.g. the loss). A parameter without a gradient counts as
// zeros; a worker with no tokens contributes nothing. Returns the global token count, then the
// sums of the scalars (as float32 carried them).
std::vector<double> averageGradients(WorkerGroup& group, const std::vector<at::Tensor>& parameters, int64_t localTokens,
                                     const std::vector<double>& scalars = {},
                                     std::size_t bucketBytes = std::size_t{25} << 20);

// Rank 0's parameter values on every worker (the same initial weights everywhere).
void broadcastParameters(WorkerGroup& group, const std::vector<at::Tensor>& parameters,
                         std::size_t bucketBytes = std::size_t{25} << 20);

// Parameter indices grouped into buckets of at most `bucketBytes` (a larger tensor alone in its own).
std::vector<std::vector<std::size_t>> gradientBuckets(const std::vector<at::Tensor>& parameters, std::size_t bucketBytes);

}  // namespace nmt::parallel
