#pragma once

#include "decode/DecodingOptions.h"

#include <string>
#include <vector>

namespace nmt::test {

// A fresh temporary folder, removed with everything in it when the object goes.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void writeFile(const std::string& path, const std::string& content);
std::string readFile(const std::string& path);  // the bytes; throws when unreadable
void writeLines(const std::string& path, const std::vector<std::string>& lines);

// Deterministic German-like and English-like sentences with umlauts, accents, quotes and digits.
std::vector<std::string> sampleSentences(std::size_t count, unsigned seed);

// A small BPE model trained once per test process on sampleSentences (vocabulary 120).
const std::string& sharedBpeModelPath();

// A search of this beam (1: greedy) keeping nbest hypotheses, the rest DecodingOptions' defaults.
inline DecodingOptions searchOptions(int64_t beam, int64_t nbest, double lengthPenalty = 1.0, bool attention = false) {
  DecodingOptions o;
  o.beamSize = beam;
  o.nbest = nbest;
  o.lengthPenalty = lengthPenalty;
  o.keepAttention = attention;
  return o;
}

// Message of the exception `fn` throws, or "" if it throws none.
template <typename Fn>
std::string errorOf(Fn&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace nmt::test
