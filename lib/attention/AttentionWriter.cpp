#include "attention/AttentionWriter.h"

#include "attention/Csv.h"
#include "util/InputError.h"
#include "util/FileSystem.h"
#include "util/OutputFile.h"

#include <fmt/core.h>


namespace nmt {
namespace {

std::string weight(float w) { return fmt::format("{:.6f}", w); }

}  // namespace

AttentionWriter::AttentionWriter(std::string directory, std::string format, bool svg)
    : directory_(std::move(directory)), format_(std::move(format)), svg_(svg) {
  if (format_ != "matrix" && format_ != "long")
    throw OptionError("`format` must be matrix or long, not '" + format_ + "'");
  try {
    files::createDirectories(directory_);
  } catch (const std::runtime_error& e) {
    throw InputError(e.what());
  }
  index_ = std::make_unique<OutputFile>(directory_ + "/index.csv");
  writeCsvRow(index_->stream(), {"sentence", "source", "translation"});
  if (format_ == "long") {
    long_ = std::make_unique<OutputFile>(directory_ + "/attention.csv");
    writeCsvRow(long_->stream(), {"sentence", "target_pos", "target_piece", "source_pos", "source_piece", "weight"});
  }
}

std::string AttentionWriter::path(std::size_t sentence, const std::string& suffix) const {
  return fmt::format("{}/{:06}{}", directory_, sentence, suffix);
}

void AttentionWriter::writeMatrix(const std::string& file, const Heatmap& map) const {
  OutputFile out(file);
  std::vector<std::string> row{""};
  row.insert(row.end(), map.columnLabels.begin(), map.columnLabels.end());
  writeCsvRow(out.stream(), row);
  for (std::size_t r = 0; r < map.weights.size(); ++r) {
    row = {map.rowLabels[r]};
    for (float w : map.weights[r]) row.push_back(weight(w));
    writeCsvRow(out.stream(), row);
  }
  out.commit();
}

void AttentionWriter::add(const AttentionRecord& record) {
  writeCsvRow(index_->stream(), {std::to_string(record.sentence), record.source, record.translation});
  const auto& map = record.attention;
  if (format_ == "matrix") {
    writeMatrix(path(record.sentence, ".csv"), map);
  } else {
    for (std::size_t r = 0; r < map.weights.size(); ++r)
      for (std::size_t c = 0; c < map.columnLabels.size(); ++c)
        writeCsvRow(long_->stream(), {std::to_string(record.sentence), std::to_string(r + 1), map.rowLabels[r],
                            std::to_string(c + 1), map.columnLabels[c], weight(map.weights[r][c])});
  }
  for (const auto& [name, map] : record.headMaps) writeMatrix(path(record.sentence, "." + name + ".csv"), map);
  if (svg_) {
    OutputFile out(path(record.sentence, ".svg"));
    out.stream() << svgHeatmap(map, fmt::format("{}: {}", record.sentence, record.source));
    out.commit();
  }
  index_->flush();  // a full disk stops the run at this sentence
  if (long_) long_->flush();
}

void AttentionWriter::finish() {
  index_->commit();
  if (long_) long_->commit();
}

}  // namespace nmt
