#include "data/ParallelCorpus.h"

#include "data/CorpusReader.h"

namespace nmt {

ParallelCorpus ParallelCorpus::read(const CorpusFiles& files) {
  CorpusReader reader(files);
  ParallelCorpus corpus;
  SentencePair pair;
  while (reader.next(pair)) corpus.pairs_.push_back(std::move(pair));
  corpus.counts_ = reader.counts();
  return corpus;
}

ParallelCorpus ParallelCorpus::fromFiles(const std::string& sourcePath, const std::string& targetPath) {
  return read({sourcePath, targetPath, ""});
}

ParallelCorpus ParallelCorpus::fromTsv(const std::string& path) { return read({"", "", path}); }

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
