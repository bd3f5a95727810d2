#include "TestSupport.h"

#include "tokenization/BpeTrainer.h"
#include "util/FileSystem.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>

namespace nmt::test {

TempDir::TempDir() {
  path_ = files::makeTemporaryDirectory("nmt-test");
}

TempDir::~TempDir() {
  files::removeAll(path_);
}

void writeFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeLines(const std::string& path, const std::vector<std::string>& lines) {
  std::string content;
  for (const auto& l : lines) content += l + "\n";
  writeFile(path, content);
}

std::vector<std::string> sampleSentences(std::size_t count, unsigned seed) {
  static const std::vector<std::string> words = {
      "Ein", "Mann", "fährt", "über", "die", "Straße", "mit", "seinem", "Fahrrad", "Café", "naïve", "résumé",
      "Mädchen", "spielt", "im", "Schnee", "\"Hallo\"", "„Guten", "Tag“", "sagt", "er", "a", "man", "rides", "his",
      "bike", "across", "the", "street", "girl", "plays", "in", "snow", "'quoted'", "Größe", "Öl", "Übung", "über",
      "2", "17", "3.5", "1999", "42,", "dogs", "Hunde", "laufen", "run", "schön", "élève", "garçon", "déjà", "vu."};
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t n = 3 + rng() % 10;
    std::string s;
    for (std::size_t k = 0; k < n; ++k) s += (k ? " " : "") + words[rng() % words.size()];
    out.push_back(s);
  }
  return out;
}

const std::string& sharedBpeModelPath() {
  static TempDir dir;
  static const std::string path = [] {
    writeLines(dir.file("train.txt"), sampleSentences(400, 7));
    BpeTrainOptions opts;
    opts.inputs = {dir.file("train.txt")};
    opts.modelPrefix = dir.file("bpe");
    opts.vocabSize = 120;
    trainBpeModel(opts);
    return dir.file("bpe.model");
  }();
  return path;
}

}  // namespace nmt::test
