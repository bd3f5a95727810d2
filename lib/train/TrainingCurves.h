#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

// One row of metrics.csv as the plot needs it; NaN where the row has no value (no validation in
// that row, no training tokens since the previous row).
struct CurvePoint {
  int64_t step;
  double minutes;  // elapsed_s / 60
  double trainLoss;
  double validLoss;
  double validBleu;
};

// The rows of metrics.csv text, found by header name (so column order does not matter, and logs
// from before the workers column read the same). A malformed row throws InputError
// "NAME:LINE: ..."; empty text gives no rows.
std::vector<CurvePoint> readMetricsCsv(const std::string& csvText, const std::string& name = "metrics.csv");

// A self-contained SVG (760x420, no scripts, fonts or links): losses and validation BLEU against
// steps, side by side, with minutes on the top axes. The same points give the same bytes.
std::string trainingCurvesSvg(const std::vector<CurvePoint>& points, const std::string& title);

// Plots metrics.csv into svgPath, replacing it atomically (a browser reloading it mid-run never
// sees half a file). InputError naming the file when the CSV cannot be read or parsed.
void writeTrainingCurves(const std::string& metricsCsvPath, const std::string& svgPath, const std::string& title);

}  // namespace nmt
