#include "data/Shortlist.h"

#include "tokenization/SpecialIds.h"
#include "util/AtomicFile.h"
#include "util/Crc32.h"
#include "util/FileFormat.h"
#include "util/InputError.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <sstream>

namespace nmt {
namespace {

// version 2: CRC-32 (util/Crc32.h, as the prepared corpus and the checkpoints) for the file and the BPE models
constexpr FileFormat kFormat{"shortlist", {'N', 'M', 'T', 'S', 'H', 'R', 'T', 'L'}, 2};

uint32_t crc32Of(const std::string& bytes, std::size_t size) {
  return crc32(0, reinterpret_cast<const unsigned char*>(bytes.data()), size);
}

// "make it again with nmt-shortlist --model DIR", DIR the file's folder
std::string remakeAdvice(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return "nmt-shortlist --model " + (slash == std::string::npos ? std::string(".") : path.substr(0, slash));
}

// "shortlist PATH: REASON; make it again with nmt-shortlist --model DIR"
InputError refusal(const std::string& path, const std::string& reason) {
  return InputError("shortlist " + path + ": " + reason + "; make it again with " + remakeAdvice(path));
}

// A file's bytes; false when it cannot be read.
bool readBytes(const std::string& path, std::string& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  bytes = text.str();
  return true;
}

// Sorted, unique (source, target) links that co-occur in a pair; source `nullSource` stands for
// the empty word every target piece may come from. Merged in chunks, so that memory follows the
// distinct links, not the corpus size.
std::vector<uint64_t> coOccurrences(const std::vector<EncodedPair>& pairs, int64_t targetVocab, int64_t nullSource) {
  std::vector<uint64_t> all, chunk;
  auto mergeChunk = [&] {
    std::sort(chunk.begin(), chunk.end());
    chunk.erase(std::unique(chunk.begin(), chunk.end()), chunk.end());
    std::vector<uint64_t> merged;
    merged.reserve(all.size() + chunk.size());
    std::set_union(all.begin(), all.end(), chunk.begin(), chunk.end(), std::back_inserter(merged));
    all = std::move(merged);
    chunk.clear();
  };
  for (const auto& p : pairs) {
    for (int t : p.target) {
      chunk.push_back(static_cast<uint64_t>(nullSource) * targetVocab + t);
      for (int s : p.source) chunk.push_back(static_cast<uint64_t>(s) * targetVocab + t);
    }
    if (chunk.size() > (1u << 22)) mergeChunk();
  }
  mergeChunk();
  return all;
}

class Writer {
 public:
  void u32(uint32_t v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void u64(uint64_t v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void ids(const std::vector<int>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (int id : v) u32(static_cast<uint32_t>(id));
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class Reader {
 public:
  Reader(const std::string& bytes, std::string path) : bytes_(bytes), path_(std::move(path)) {}
  uint32_t u32() { return take<uint32_t>(); }
  uint64_t u64() { return take<uint64_t>(); }
  std::vector<int> ids(int64_t below) {
    const uint32_t n = u32();
    if (n > (bytes_.size() - at_) / 4) damaged();
    std::vector<int> out(n);
    for (auto& id : out) {
      id = static_cast<int>(u32());
      if (id < 0 || id >= below) damaged();
    }
    return out;
  }
  [[noreturn]] void damaged() const {
    throw refusal(path_, "damaged");
  }

 private:
  template <typename T>
  T take() {
    if (bytes_.size() - at_ < sizeof(T)) damaged();
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  const std::string& bytes_;
  std::string path_;
  std::size_t at_ = sizeof kFormat.magic;
};

}  // namespace

Shortlist Shortlist::learn(const std::vector<EncodedPair>& pairs, const ShortlistKey& key,
                           const ShortlistOptions& options) {
  const int64_t T = key.targetVocab, nullSource = key.sourceVocab;
  const auto links = coOccurrences(pairs, T, nullSource);
  // where each source's links start (sources 0 .. sourceVocab, the last being the empty word)
  std::vector<std::size_t> start(static_cast<std::size_t>(nullSource) + 2, 0);
  for (uint64_t link : links) ++start[link / T + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  auto linkOf = [&](int64_t s, int t) {
    const auto first = links.begin() + static_cast<std::ptrdiff_t>(start[s]);
    const auto last = links.begin() + static_cast<std::ptrdiff_t>(start[s + 1]);
    return static_cast<std::size_t>(std::lower_bound(first, last, static_cast<uint64_t>(s) * T + t) - links.begin());
  };

  // IBM Model 1: t(target | source), every source position (and the empty word) equally likely
  std::vector<double> prob(links.size(), 1.0), count(links.size());
  std::vector<double> total(static_cast<std::size_t>(nullSource) + 1);
  std::vector<std::size_t> at;
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    std::fill(count.begin(), count.end(), 0.0);
    std::fill(total.begin(), total.end(), 0.0);
    for (const auto& p : pairs)
      for (int t : p.target) {
        at.clear();
        at.push_back(linkOf(nullSource, t));
        for (int s : p.source) at.push_back(linkOf(s, t));
        double z = 0.0;
        for (std::size_t k : at) z += prob[k];
        for (std::size_t k : at) count[k] += prob[k] / z;
      }
    for (std::size_t k = 0; k < links.size(); ++k) total[links[k] / T] += count[k];
    for (std::size_t k = 0; k < links.size(); ++k) prob[k] = count[k] / total[links[k] / T];
  }

  Shortlist out;
  out.key_ = key;
  out.options_ = options;
  out.perSource_.resize(static_cast<std::size_t>(key.sourceVocab));
  std::vector<std::pair<double, int>> candidates;
  for (int64_t s = 0; s < key.sourceVocab; ++s) {
    candidates.clear();
    for (std::size_t k = start[s]; k < start[s + 1]; ++k) {
      const int t = static_cast<int>(links[k] % T);
      if (SpecialIds::producible(t)) candidates.emplace_back(-prob[k], t);  // most likely first, then by id
    }
    const auto keep = std::min<std::size_t>(candidates.size(), static_cast<std::size_t>(std::max(0, options.perSource)));
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(keep), candidates.end());
    for (std::size_t i = 0; i < keep; ++i) out.perSource_[s].push_back(candidates[i].second);
  }

  std::vector<int64_t> frequency(static_cast<std::size_t>(T), 0);
  for (const auto& p : pairs)
    for (int t : p.target) ++frequency[t];
  std::vector<int> byFrequency(static_cast<std::size_t>(T));
  std::iota(byFrequency.begin(), byFrequency.end(), 0);
  std::stable_sort(byFrequency.begin(), byFrequency.end(), [&](int a, int b) { return frequency[a] > frequency[b]; });
  out.always_ = {SpecialIds::kUnk, SpecialIds::kEos};
  for (int t : byFrequency) {
    if (static_cast<int>(out.always_.size()) >= options.frequent + 2) break;
    if (SpecialIds::producible(t) && frequency[t] > 0 && t != SpecialIds::kUnk && t != SpecialIds::kEos) out.always_.push_back(t);
  }
  std::sort(out.always_.begin(), out.always_.end());
  return out;
}

void Shortlist::addTargets(const std::vector<int>& sourceIds, std::vector<int>& sortedUnion) const {
  // A bit a target piece, read out in order: the union comes out sorted without sorting its few
  // hundred ids (this runs once a sentence; the sort was 3% of a small model's translation time).
  std::vector<uint64_t> bits(static_cast<std::size_t>((key_.targetVocab + 63) / 64));
  const auto mark = [&](const std::vector<int>& ids) {
    for (int t : ids)
      if (t >= 0 && t < key_.targetVocab) bits[static_cast<std::size_t>(t) >> 6] |= uint64_t{1} << (t & 63);
  };
  mark(sortedUnion);
  mark(always_);
  for (int s : sourceIds)
    if (s >= 0 && static_cast<std::size_t>(s) < perSource_.size()) mark(perSource_[s]);
  sortedUnion.clear();
  for (std::size_t w = 0; w < bits.size(); ++w)
    for (uint64_t word = bits[w]; word != 0; word &= word - 1)
      sortedUnion.push_back(static_cast<int>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(word))));
}

std::vector<int> Shortlist::batchList(const std::vector<const std::vector<int>*>& lists) const {
  std::vector<int> out, merged;
  for (const auto* list : lists) {
    merged.clear();
    std::set_union(out.begin(), out.end(), list->begin(), list->end(), std::back_inserter(merged));
    out.swap(merged);
  }
  std::vector<int> padding;
  for (int t = 0; (out.size() + padding.size()) % 8 != 0 && t < key_.targetVocab; ++t)
    if (t != SpecialIds::kPad && t != SpecialIds::kBos && !std::binary_search(out.begin(), out.end(), t))
      padding.push_back(t);
  merged.clear();
  std::set_union(out.begin(), out.end(), padding.begin(), padding.end(), std::back_inserter(merged));
  return merged;
}

std::vector<int> Shortlist::targetsFor(const std::vector<int>& sourceIds) const {
  std::vector<int> out;
  addTargets(sourceIds, out);
  return out;
}

double Shortlist::coverage(const std::vector<EncodedPair>& pairs) const {
  std::size_t inside = 0, all = 0;
  for (const auto& p : pairs) {
    const auto list = targetsFor(p.source);
    for (int t : p.target) inside += std::binary_search(list.begin(), list.end(), t) ? 1 : 0;
    inside += 1;  // </s> is always there
    all += p.target.size() + 1;
  }
  return all == 0 ? 1.0 : static_cast<double>(inside) / static_cast<double>(all);
}

void Shortlist::save(const std::string& path) const {
  Writer w;
  w.bytes().append(kFormat.magic, sizeof kFormat.magic);
  w.u32(kFormat.version);
  w.u64(static_cast<uint64_t>(key_.sourceVocab));
  w.u64(static_cast<uint64_t>(key_.targetVocab));
  w.u32(key_.sourceBpeCrc);
  w.u32(key_.targetBpeCrc);
  w.u32(static_cast<uint32_t>(options_.perSource));
  w.u32(static_cast<uint32_t>(options_.frequent));
  w.u32(static_cast<uint32_t>(options_.iterations));
  w.ids(always_);
  for (const auto& list : perSource_) w.ids(list);
  w.u32(crc32Of(w.bytes(), w.bytes().size()));
  writeTextFileAtomically(path, w.bytes());
}

Shortlist Shortlist::load(const std::string& path, const ShortlistKey& expected) {
  std::string bytes;
  if (!readBytes(path, bytes))
    throw MissingFileError("no shortlist " + path + " (make one with " + remakeAdvice(path) + ")");
  Reader r(bytes, path);
  if (bytes.size() < sizeof kFormat.magic + 8) throw refusal(path, "not a shortlist file (too short)");
  // the version before the checksum: an older file is refused as older, not as damaged
  if (const auto problem = kFormat.identityProblem(bytes.data(), r.u32()); !problem.empty())
    throw refusal(path, problem);
  uint32_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 4, 4);
  if (const auto problem = FileFormat::checksumProblem(stored, crc32Of(bytes, bytes.size() - 4)); !problem.empty())
    throw refusal(path, problem);
  Shortlist out;
  out.key_.sourceVocab = static_cast<int64_t>(r.u64());
  out.key_.targetVocab = static_cast<int64_t>(r.u64());
  out.key_.sourceBpeCrc = r.u32();
  out.key_.targetBpeCrc = r.u32();
  if (!(out.key_ == expected))
    throw InputError(fmt::format("shortlist {} was made for other BPE models ({} and {} pieces) than this model's "
                                 "({} and {}); make it again with {}",
                                 path, out.key_.sourceVocab, out.key_.targetVocab, expected.sourceVocab,
                                 expected.targetVocab, remakeAdvice(path)));
  out.options_.perSource = static_cast<int>(r.u32());
  out.options_.frequent = static_cast<int>(r.u32());
  out.options_.iterations = static_cast<int>(r.u32());
  out.always_ = r.ids(out.key_.targetVocab);
  out.perSource_.resize(static_cast<std::size_t>(out.key_.sourceVocab));
  for (auto& list : out.perSource_) list = r.ids(out.key_.targetVocab);
  return out;
}

ShortlistKey Shortlist::keyFor(const ModelDirectory& dir, int64_t sourceVocab, int64_t targetVocab) {
  const auto crcOf = [](const std::string& path) {
    std::string bytes;
    if (!readBytes(path, bytes)) throw InputError("cannot read " + path);
    return crc32Of(bytes, bytes.size());
  };
  return {sourceVocab, targetVocab, crcOf(dir.sourceBpeModel()), crcOf(dir.targetBpeModel())};
}

std::string makeShortlist(const ModelDirectory& dir, const PreparedCorpus& train, std::uint64_t seed,
                          const std::vector<EncodedPair>& valid, int64_t sourceVocab, int64_t targetVocab,
                          const ShortlistOptions& options) {
  // IBM Model 1's time and memory follow the pairs it reads (90 s and 1.2 GB for a million pairs)
  constexpr std::size_t kSamplePairs = 200000;
  const auto shortlist =
      Shortlist::learn(train.sample(kSamplePairs, seed), Shortlist::keyFor(dir, sourceVocab, targetVocab), options);
  shortlist.save(dir.shortlist());
  // what a sentence's list, and a batch of 64 sentences' union, hold on average
  std::size_t sentencePieces = 0, batchPieces = 0, batches = 0;
  std::vector<int> batch;
  for (std::size_t i = 0; i < valid.size(); ++i) {
    sentencePieces += shortlist.targetsFor(valid[i].source).size();
    shortlist.addTargets(valid[i].source, batch);
    if ((i + 1) % 64 == 0 || i + 1 == valid.size()) {
      batchPieces += shortlist.batchList({&batch}).size();
      ++batches;
      batch.clear();
    }
  }
  return fmt::format("shortlist: {} pieces per source piece + {} most frequent (IBM Model 1, {} iterations); valid: "
                     "{:.2f}% of reference pieces covered, {:.0f} of {} pieces a sentence, {:.0f} a batch of 64; {}",
                     options.perSource, options.frequent, options.iterations, 100.0 * shortlist.coverage(valid),
                     valid.empty() ? 0.0 : static_cast<double>(sentencePieces) / valid.size(), targetVocab,
                     batches == 0 ? 0.0 : static_cast<double>(batchPieces) / batches, dir.shortlist());
}

}  // namespace nmt
