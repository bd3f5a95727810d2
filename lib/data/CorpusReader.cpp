#include "data/CorpusReader.h"

#include "util/InputError.h"

#include <sys/stat.h>

#include <algorithm>

namespace nmt {
namespace {

bool isBlank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; });
}

std::size_t countRemainingLines(TextLineReader& reader) {
  std::string line;
  while (reader.next(line)) {
  }
  return reader.lineNumber();
}

std::uint64_t sizeOf(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

}  // namespace

CorpusReader::CorpusReader(const CorpusFiles& files) : files_(files) {
  if (!files_.tsv.empty()) {
    first_ = std::make_unique<TextLineReader>(files_.tsv);
    totalBytes_ = sizeOf(files_.tsv);
  } else {
    first_ = std::make_unique<TextLineReader>(files_.source);
    second_ = std::make_unique<TextLineReader>(files_.target);
    totalBytes_ = sizeOf(files_.source) + sizeOf(files_.target);
  }
}

bool CorpusReader::nextRaw(SentencePair& pair) {
  if (!second_) {
    std::string& line = pair.source;
    if (!first_->next(line)) return false;
    bytesRead_ += line.size() + 1;
    pair.line = first_->lineNumber();
    if (isBlank(line)) {
      line.clear();
      pair.target.clear();
      return true;
    }
    const auto tabs = std::count(line.begin(), line.end(), '\t');
    if (tabs != 1)
      throw InputError(files_.tsv + ":" + std::to_string(pair.line) +
                       ": expected exactly one tab between source and target, found " + std::to_string(tabs));
    const auto tab = line.find('\t');
    pair.target.assign(line, tab + 1, std::string::npos);
    line.resize(tab);
    return true;
  }
  const bool haveSource = first_->next(pair.source);
  const bool haveTarget = second_->next(pair.target);
  if (haveSource && haveTarget) {
    bytesRead_ += pair.source.size() + pair.target.size() + 2;
    pair.line = first_->lineNumber();
    return true;
  }
  if (haveSource || haveTarget) {
    const std::size_t sourceLines = haveSource ? countRemainingLines(*first_) : first_->lineNumber();
    const std::size_t targetLines = haveTarget ? countRemainingLines(*second_) : second_->lineNumber();
    throw InputError(files_.source + " has " + std::to_string(sourceLines) + " lines but " + files_.target + " has " +
                     std::to_string(targetLines) + "; source and target files must be line-aligned");
  }
  return false;
}

bool CorpusReader::next(SentencePair& pair) {
  while (nextRaw(pair)) {
    ++counts_.lines;
    if (isBlank(pair.source) || isBlank(pair.target)) {
      ++counts_.emptySkipped;
      continue;
    }
    ++counts_.kept;
    return true;
  }
  return false;
}

}  // namespace nmt
