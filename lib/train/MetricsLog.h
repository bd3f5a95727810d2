#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace nmt {

// One row of metrics.csv; NaN fields are written empty (no validation in that row).
struct MetricsRow {
  int64_t step = 0;
  int64_t epoch = 0;             // 1-based
  double trainLoss = 0.0;        // label-smoothed loss per target token since the previous row
  double validLoss = 0.0;        // validation cross-entropy per target token (no smoothing)
  double validPerplexity = 0.0;  // exp(validLoss)
  double validBleu = 0.0;        // greedy decoding, cased, sacreBLEU-compatible
  double learningRate = 0.0;
  double tokensPerSecond = 0.0;  // source + target tokens (no padding) since the previous row
  double elapsedSeconds = 0.0;   // training time so far
  int workers = 1;               // processes training together (tokens/s is theirs together)
};

// metrics.csv in a model directory. A fresh log writes the header; a resumed one first drops
// rows after the checkpoint's step (written after the last save), then appends. Rows of logs
// written before the workers column existed get workers = 1 (they were one process).
class MetricsLog {
 public:
  MetricsLog(const std::string& path, bool resume, int64_t resumeStep);
  void append(const MetricsRow& row);

  static const char* header();

 private:
  std::string path_;
  std::ofstream out_;
};

}  // namespace nmt
