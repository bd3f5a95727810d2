#pragma once

#include "attention/Heatmap.h"
#include "util/OutputFile.h"

#include <memory>
#include <string>
#include <vector>

namespace nmt {

// One sentence's attention, ready to write.
struct AttentionRecord {
  std::size_t sentence = 0;  // 1-based input line
  std::string source;        // the input text
  std::string translation;   // the model's translation (or the forced reference)
  Heatmap attention;         // target pieces x source pieces
  // Transformer layers' per-head matrices, each written to OUT/000001.NAME.csv; names such as
  // "self.layer1.head1" (the encoder's self-attention) or "cross.layer2.head4"
  std::vector<std::pair<std::string, Heatmap>> headMaps;
};

// Writes attention as CSV files that pandas, R or a spreadsheet read directly:
//   matrix: OUT/000001.csv per sentence, header ",src1,src2,...", then "tgt,w1,w2,..." rows
//   long:   OUT/attention.csv, "sentence,target_pos,target_piece,source_pos,source_piece,weight"
// plus OUT/index.csv ("sentence,source,translation"), and optionally OUT/000001.svg heatmaps
// and per-head matrices OUT/000001.self.layerL.headH.csv (encoder self-attention),
// OUT/000001.cross.layerL.headH.csv and OUT/000001.decoder-self.layerL.headH.csv (Transformer decoder).
class AttentionWriter {
 public:
  AttentionWriter(std::string directory, std::string format, bool svg);

  void add(const AttentionRecord& record);
  // Commits index.csv (and attention.csv). Each file is written under a temporary name and
  // renamed when whole; a failed write throws WriteError naming the file.
  void finish();

 private:
  std::string path(std::size_t sentence, const std::string& suffix) const;
  void writeMatrix(const std::string& file, const Heatmap& map) const;

  std::string directory_;
  std::string format_;
  bool svg_;
  std::unique_ptr<OutputFile> index_;
  std::unique_ptr<OutputFile> long_;  // --format long
};

}  // namespace nmt
