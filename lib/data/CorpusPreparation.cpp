#include "data/CorpusPreparation.h"

#include "text/CodePoints.h"
#include "tokenization/BpeModel.h"
#include "tokenization/WordCachedEncoder.h"
#include "util/Progress.h"
#include "util/Crc32.h"
#include "util/FileSystem.h"
#include "util/InputError.h"
#include "util/ParallelFor.h"
#include "util/Stopwatch.h"

#include <fmt/core.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

namespace nmt {
namespace {

constexpr std::size_t kMiB = 1 << 20;

uint32_t crcOfRange(std::ifstream& in, uint64_t from, uint64_t size) {
  std::vector<char> bytes(static_cast<std::size_t>(size));
  in.seekg(static_cast<std::streamoff>(from));
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  return crc32(0, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<std::size_t>(in.gcount()));
}

// An input file, which may be large: where it is, its size and time, and its first and last MiB.
std::string describeInput(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return path + " missing\n";
  const auto size = static_cast<uint64_t>(st.st_size);
  std::ifstream in(path, std::ios::binary);
  const uint64_t edge = std::min<uint64_t>(size, kMiB);
  return files::canonicalPath(path) + fmt::format(" size {} mtime {}.{:09d} head {:08x} tail {:08x}\n", size,
                                                  st.st_mtim.tv_sec, st.st_mtim.tv_nsec, crcOfRange(in, 0, edge),
                                                  crcOfRange(in, size - edge, edge));
}

// A BPE model, small: its name and contents, wherever its folder is.
std::string describeModel(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return path + " missing\n";
  std::ifstream in(path, std::ios::binary);
  return path.substr(path.rfind('/') + 1) +
         fmt::format(" crc {:08x}\n", crcOfRange(in, 0, static_cast<uint64_t>(st.st_size)));
}

std::string seconds(double s) {
  return s < 90 ? fmt::format("{:.0f} s", s) : fmt::format("{}:{:02d} min", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
}

}  // namespace

std::string preparedCorpusKey(const CorpusFiles& files, const std::vector<std::string>& bpeModels,
                              std::size_t maxLength, double caseAugmentation) {
  std::string key = fmt::format("prepared corpus format {}\n", PreparedCorpus::kVersion);
  for (const auto& path : {files.source, files.target, files.tsv})
    if (!path.empty()) key += "input " + describeInput(path);
  for (const auto& path : bpeModels) key += "bpe " + describeModel(path);
  key += fmt::format("max-length {}\n", maxLength);
  if (caseAugmentation > 0) key += fmt::format("case-augmentation {}\n", caseAugmentation);
  return key;
}

void checkCaseAugmentation(double share) {
  if (!(share >= 0.0 && share <= 0.5))
    throw OptionError(fmt::format("`case-augmentation` must be between 0 (none) and 0.5, not {}", share));
}

int caseAugmentationOf(std::size_t line, double share) {
  if (share <= 0) return 0;
  // splitmix64 of the line number: a draw in [0, 1) that no other pair's depends on
  uint64_t z = static_cast<uint64_t>(line) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const double draw = static_cast<double>(z >> 11) / static_cast<double>(1ull << 53);
  return draw < share ? 1 : draw < 2 * share ? 2 : 0;
}

std::string firstKeyDifference(const std::string& was, const std::string& now) {
  std::istringstream a(was), b(now);
  std::string x, y;
  while (true) {
    const bool moreA = static_cast<bool>(std::getline(a, x)), moreB = static_cast<bool>(std::getline(b, y));
    if (!moreA && !moreB) return {};
    if (x != y || moreA != moreB) {
      const std::string& line = moreB ? y : x;
      if (line.rfind("input ", 0) != 0 && line.rfind("bpe ", 0) != 0) return line.substr(0, line.find(' '));
      const auto start = line.find(' ') + 1;  // the file
      return line.substr(start, line.find(' ', start) - start);
    }
  }
}

CorpusCounts prepareCorpus(const CorpusFiles& files, const BpeModel& sourceBpe, const BpeModel& targetBpe,
                           std::size_t maxLength, unsigned threads, const std::string& path, const std::string& key,
                           Progress& progress, double caseAugmentation) {
  constexpr std::size_t kBlock = 1 << 15;  // pairs read, then encoded together
  const Stopwatch clock;
  const std::string& firstFile = files.tsv.empty() ? files.source : files.tsv;  // whose line numbers messages give
  CorpusReader reader(files);
  PreparedCorpusWriter writer(path, std::max(sourceBpe.vocabSize(), targetBpe.vocabSize()), key);
  std::vector<SentencePair> block(kBlock);
  std::vector<std::vector<int>> sources(kBlock), targets(kBlock);
  threads = std::max(1u, threads);
  std::vector<WordCachedEncoder> sourceCaches, targetCaches;  // one per thread
  for (unsigned t = 0; t < threads; ++t) {
    sourceCaches.emplace_back(sourceBpe);
    targetCaches.emplace_back(targetBpe);
  }
  bool cached = true, firstBlock = true;
  CorpusCounts counts;
  while (true) {
    std::size_t n = 0;
    while (n < kBlock && reader.next(block[n])) ++n;
    if (n == 0) break;
    // the block's pairs written again in capitals or title case, after it (encoded with it)
    const std::size_t read = n;
    for (std::size_t i = 0; i < read && caseAugmentation > 0; ++i) {
      const int kind = caseAugmentationOf(block[i].line, caseAugmentation);
      if (kind == 0) continue;
      if (n == block.size()) {
        block.resize(block.size() + kBlock);
        sources.resize(block.size());
        targets.resize(block.size());
      }
      const auto cased = [kind](const std::string& s) { return kind == 1 ? text::upperCased(s) : text::capitalizedWords(s); };
      block[n++] = {cased(block[i].source), cased(block[i].target), block[i].line};
    }
    parallelFor(n, threads, [&](std::size_t i, unsigned t) {
      sources[i] = cached ? sourceCaches[t].encode(block[i].source) : sourceBpe.encodeIds(block[i].source);
      targets[i] = cached ? targetCaches[t].encode(block[i].target) : targetBpe.encodeIds(block[i].target);
    });
    if (firstBlock) {  // a safety net under WordCachedEncoder: its words must be SentencePiece's
      firstBlock = false;
      for (std::size_t i = 0; i < n && cached; ++i)
        if (sources[i] != sourceBpe.encodeIds(block[i].source) || targets[i] != targetBpe.encodeIds(block[i].target)) {
          progress.message(fmt::format("{}:{}: encoding word by word differs from SentencePiece; encoding whole lines",
                                       firstFile, block[i].line));
          cached = false;
          for (std::size_t k = 0; k < n; ++k) {
            sources[k] = sourceBpe.encodeIds(block[k].source);
            targets[k] = targetBpe.encodeIds(block[k].target);
          }
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t longest = std::max(sources[i].size(), targets[i].size());
      if (maxLength > 0 && longest > maxLength) {
        ++counts.tooLongDropped;
        continue;
      }
      if (longest > PreparedCorpus::kMaxLength)
        throw OptionError(fmt::format("{}:{}: {} pieces on a side, more than the {} a training pair may have; set "
                                      "`max-length` to drop such pairs",
                                     firstFile, block[i].line, longest,
                                     PreparedCorpus::kMaxLength));
      writer.add(sources[i], targets[i]);
    }
    const double elapsed = clock.seconds();
    const double fraction = reader.totalBytes() > 0 ? static_cast<double>(reader.bytesRead()) / reader.totalBytes() : 0;
    const double rate = reader.counts().lines / std::max(elapsed, 1e-9);
    progress.status(fmt::format("preparing {}: {} pairs, {:.0f} pairs/s, {} left", files.describe(),
                                reader.counts().lines, rate,
                                fraction > 0 ? seconds(elapsed * (1 - fraction) / fraction) : std::string("?")));
  }
  counts.lines = reader.counts().lines;
  counts.emptySkipped = reader.counts().emptySkipped;
  counts.kept = writer.size();
  writer.commit(counts);
  const double elapsed = clock.seconds();
  progress.message(fmt::format("prepared {}: {} pairs in {:.1f} s ({:.0f} pairs/s, {} threads)", path, counts.kept,
                               elapsed, counts.lines / std::max(elapsed, 1e-9), threads));
  return counts;
}

CorpusSample sampleCorpus(const CorpusFiles& files, std::size_t most, std::uint64_t seed) {
  CorpusReader reader(files);
  std::mt19937_64 rng(seed);
  std::vector<SentencePair> kept;
  SentencePair pair;
  std::size_t seen = 0;
  while (reader.next(pair)) {  // reservoir sampling: each pair kept with probability most / seen
    ++seen;
    if (most == 0 || kept.size() < most) {
      kept.push_back(std::move(pair));
    } else if (const std::size_t slot = rng() % seen; slot < most) {
      kept[slot] = std::move(pair);
    }
  }
  std::sort(kept.begin(), kept.end(), [](const SentencePair& a, const SentencePair& b) { return a.line < b.line; });
  CorpusSample sample;
  sample.counts = reader.counts();
  for (auto& p : kept) {
    sample.sources.push_back(std::move(p.source));
    sample.targets.push_back(std::move(p.target));
  }
  return sample;
}

}  // namespace nmt
