#include "attention/Heatmap.h"

#include "util/Utf8.h"
#include "util/XmlText.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace nmt {
namespace {

// Display width in code points (pieces are UTF-8; good enough for alignment of Latin text).
std::size_t width(const std::string& s) { return codePoints(s); }

}  // namespace

std::string textHeatmap(const Heatmap& map) {
  static const std::string shades = " .:-=+*#%@";
  std::string out = "  source:";
  for (std::size_t c = 0; c < map.columnLabels.size(); ++c) out += fmt::format(" {}={}", c % 10, map.columnLabels[c]);
  out += "\n";
  std::size_t labelWidth = 0;
  for (const auto& l : map.rowLabels) labelWidth = std::max(labelWidth, width(l));
  out += "  " + std::string(labelWidth, ' ') + " |";
  for (std::size_t c = 0; c < map.columnLabels.size(); ++c) out += std::to_string(c % 10);
  out += "|\n";
  for (std::size_t r = 0; r < map.weights.size(); ++r) {
    out += "  " + map.rowLabels[r] + std::string(labelWidth - width(map.rowLabels[r]), ' ') + " |";
    for (float w : map.weights[r]) {
      const auto level = static_cast<std::size_t>(std::lround(std::clamp(w, 0.0f, 1.0f) * (shades.size() - 1)));
      out += shades[level];
    }
    out += "|\n";
  }
  return out;
}

std::string svgHeatmap(const Heatmap& map, const std::string& title) {
  const int cell = 28, fontSize = 12;
  std::size_t rowLabel = 0, columnLabel = 0;
  for (const auto& l : map.rowLabels) rowLabel = std::max(rowLabel, width(l));
  for (const auto& l : map.columnLabels) columnLabel = std::max(columnLabel, width(l));
  const int left = 16 + static_cast<int>(rowLabel) * 8, top = 40 + static_cast<int>(columnLabel) * 8;
  const int columns = static_cast<int>(map.columnLabels.size()), rows = static_cast<int>(map.rowLabels.size());
  const int w = left + columns * cell + 16, h = top + rows * cell + 16;
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"{}\">\n<title>{}</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      w, h, w, h, fontSize, xmlEscaped(title));
  out += fmt::format("<text x=\"8\" y=\"18\" font-weight=\"bold\">{}</text>\n", xmlEscaped(title));
  for (int c = 0; c < columns; ++c) {
    const int x = left + c * cell + cell / 2 + 4, y = top - 6;
    out += fmt::format("<text x=\"{}\" y=\"{}\" transform=\"rotate(-60 {} {})\">{}</text>\n", x, y, x, y,
                       xmlEscaped(map.columnLabels[c]));
  }
  for (int r = 0; r < rows; ++r) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", left - 6,
                       top + r * cell + cell / 2 + fontSize / 2 - 1, xmlEscaped(map.rowLabels[r]));
    for (int c = 0; c < columns; ++c) {
      const float weight = std::clamp(map.weights[r][c], 0.0f, 1.0f);
      const int shade = static_cast<int>(std::lround(255.0 * (1.0 - weight)));
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"rgb({},{},{})\" stroke=\"#ddd\">"
          "<title>{} → {}: {:.3f}</title></rect>\n",
          left + c * cell, top + r * cell, cell, cell, shade, shade, shade, xmlEscaped(map.rowLabels[r]),
          xmlEscaped(map.columnLabels[c]), weight);
    }
  }
  out += "</svg>\n";
  return out;
}

}  // namespace nmt
