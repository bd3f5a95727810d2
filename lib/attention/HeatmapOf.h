#pragma once

#include "attention/Heatmap.h"

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace nmt {

// An attention matrix [rows, columns] (any device, any float type) with its labels, for the
// text, CSV and SVG writers, which know nothing of tensors.
Heatmap heatmapOf(const at::Tensor& weights, std::vector<std::string> rowLabels, std::vector<std::string> columnLabels);

}  // namespace nmt
