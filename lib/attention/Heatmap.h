#pragma once

#include <string>
#include <vector>

namespace nmt {

// An attention matrix with its labels: rows are target pieces, columns source pieces.
struct Heatmap {
  std::vector<std::string> rowLabels;
  std::vector<std::string> columnLabels;
  std::vector<std::vector<float>> weights;  // [rows][columns], each in [0, 1]
};

// A compact text picture for a terminal: one shade character (" .:-=+*#%@") per cell, a row
// per target piece, the source pieces numbered in a legend above.
std::string textHeatmap(const Heatmap& map);

// A self-contained SVG picture: grey-scale cells, source pieces along the top, target pieces
// down the left, each cell's weight in its tooltip.
std::string svgHeatmap(const Heatmap& map, const std::string& title);

}  // namespace nmt
