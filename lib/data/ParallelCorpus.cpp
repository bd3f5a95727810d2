#include "data/ParallelCorpus.h"

#include "util/InputError.h"
#include "util/TextLineReader.h"

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

}  // namespace

void ParallelCorpus::add(std::string source, std::string target, std::size_t line) {
  ++counts_.lines;
  if (isBlank(source) || isBlank(target)) {
    ++counts_.emptySkipped;
    return;
  }
  pairs_.push_back({std::move(source), std::move(target), line});
  ++counts_.kept;
}

ParallelCorpus ParallelCorpus::fromFiles(const std::string& sourcePath, const std::string& targetPath) {
  TextLineReader src(sourcePath), tgt(targetPath);
  ParallelCorpus corpus;
  std::string s, t;
  while (true) {
    const bool haveSource = src.next(s);
    const bool haveTarget = tgt.next(t);
    if (haveSource && haveTarget) {
      corpus.add(std::move(s), std::move(t), src.lineNumber());
      continue;
    }
    if (haveSource || haveTarget) {
      const std::size_t sourceLines = haveSource ? countRemainingLines(src) : src.lineNumber();
      const std::size_t targetLines = haveTarget ? countRemainingLines(tgt) : tgt.lineNumber();
      throw InputError(sourcePath + " has " + std::to_string(sourceLines) + " lines but " + targetPath + " has " +
                       std::to_string(targetLines) + "; source and target files must be line-aligned");
    }
    break;
  }
  return corpus;
}

ParallelCorpus ParallelCorpus::fromTsv(const std::string& path) {
  TextLineReader reader(path);
  ParallelCorpus corpus;
  std::string line;
  while (reader.next(line)) {
    if (isBlank(line)) {
      corpus.add({}, {}, reader.lineNumber());
      continue;
    }
    const auto tabs = std::count(line.begin(), line.end(), '\t');
    if (tabs != 1)
      throw InputError(path + ":" + std::to_string(reader.lineNumber()) +
                       ": expected exactly one tab between source and target, found " + std::to_string(tabs));
    const auto tab = line.find('\t');
    corpus.add(line.substr(0, tab), line.substr(tab + 1), reader.lineNumber());
  }
  return corpus;
}

std::vector<std::string> ParallelCorpus::sources() const {
  std::vector<std::string> out;
  out.reserve(pairs_.size());
  for (const auto& p : pairs_) out.push_back(p.source);
  return out;
}

std::vector<std::string> ParallelCorpus::targets() const {
  std::vector<std::string> out;
  out.reserve(pairs_.size());
  for (const auto& p : pairs_) out.push_back(p.target);
  return out;
}

}  // namespace nmt
