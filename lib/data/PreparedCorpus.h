#pragma once

#include "data/EncodedCorpus.h"
#include "data/LengthBucketBatcher.h"
#include "data/ParallelCorpus.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nmt {

// One side of a pair's piece ids, where they are stored (16 or 32 bits each).
class PieceIds {
 public:
  PieceIds(const unsigned char* data, std::size_t size, int bytes) : data_(data), size_(size), bytes_(bytes) {}
  std::size_t size() const { return size_; }
  int operator[](std::size_t i) const {
    if (bytes_ == 2) return reinterpret_cast<const uint16_t*>(data_)[i];
    return static_cast<int>(reinterpret_cast<const uint32_t*>(data_)[i]);
  }
  std::vector<int> vector() const;

 private:
  const unsigned char* data_;
  std::size_t size_;
  int bytes_;
};

// A training corpus as compact arrays: every pair's piece ids one after another, and per pair
// where its ids start and how many each side has. Held in memory (fromPairs) or memory-mapped
// from the file nmt-train prepares (open): mapped, a corpus costs its pages in the page cache,
// shared by every worker that maps it, and starts in the time it takes to check it.
//
// The file (native byte order; written by PreparedCorpusWriter):
//   ids        uint16 (vocabularies up to 65,536 pieces) or uint32, pair by pair, source then target
//   offsets    uint64 per pair: its first id
//   lengths    uint16 per pair, source side, then uint16 per pair, target side (without <s>, </s>)
//   key        what it was prepared from (PreparedCorpus::key), text
//   trailer    magic "NMTCORP1", version, counts, sizes, CRC-32 of everything before it
// each section starting at a multiple of 8 bytes.
class PreparedCorpus {
 public:
  static constexpr uint32_t kVersion = 1;
  static constexpr std::size_t kMaxLength = 65535;  // pieces a side may have

  PreparedCorpus() = default;
  static PreparedCorpus fromPairs(const std::vector<EncodedPair>& pairs, const CorpusCounts& counts);
  // Maps PATH after checking its size, version and checksum; InputError "PATH: REASON; delete it
  // and nmt-train prepares it again" when it is damaged or of another version.
  static PreparedCorpus open(const std::string& path);
  // What PATH was prepared from (its key), or empty when PATH is absent or not a prepared corpus
  // of this version; reads the trailer and key only.
  static std::string keyOf(const std::string& path);

  std::size_t size() const { return pairs_; }
  bool empty() const { return pairs_ == 0; }
  PieceIds source(std::size_t i) const { return ids(offsets_[i], sourceLengths_[i]); }
  PieceIds target(std::size_t i) const { return ids(offsets_[i] + sourceLengths_[i], targetLengths_[i]); }
  ExampleLength batchLength(std::size_t i) const { return batchLengthOf(sourceLengths_[i], targetLengths_[i]); }
  const CorpusCounts& counts() const { return counts_; }
  const std::string& key() const { return key_; }
  // Up to `most` pairs spread over the corpus: one drawn at random (seeded) from each of `most`
  // equal stretches, in corpus order; all of them when it has no more. EncodedPair::line is the
  // pair's index + 1.
  std::vector<EncodedPair> sample(std::size_t most, std::uint64_t seed) const;

 private:
  struct Storage;
  // Checked here, as batches read pairs, rather than for every pair at open: that would bring the
  // whole index into memory at each start. A file passes its CRC check unless made wrongly.
  PieceIds ids(uint64_t offset, std::size_t size) const {
    if (offset + size > totalIds_) throwBeyondIds();
    return {ids_ + offset * idBytes_, size, idBytes_};
  }
  [[noreturn]] void throwBeyondIds() const;

  std::shared_ptr<const Storage> storage_;  // the mapping or the owned arrays
  const unsigned char* ids_ = nullptr;
  int idBytes_ = 2;
  const uint64_t* offsets_ = nullptr;
  const uint16_t* sourceLengths_ = nullptr;
  const uint16_t* targetLengths_ = nullptr;
  std::size_t pairs_ = 0;
  uint64_t totalIds_ = 0;
  std::string path_;  // for messages ("in memory" when not mapped)
  CorpusCounts counts_;
  std::string key_;
};

// Writes a prepared corpus pair by pair into PATH.tmp (OutputFile), renamed to PATH by commit():
// PATH holds a whole corpus or nothing new. Ids are 16-bit when `vocabulary` <= 65,536.
class PreparedCorpusWriter {
 public:
  PreparedCorpusWriter(const std::string& path, int64_t vocabulary, std::string key);
  ~PreparedCorpusWriter();
  // Sides of at most PreparedCorpus::kMaxLength pieces (the caller drops or refuses longer ones).
  void add(const std::vector<int>& source, const std::vector<int>& target);
  std::size_t size() const { return sourceLengths_.size(); }
  void commit(const CorpusCounts& counts);

 private:
  class Sink;
  std::unique_ptr<Sink> sink_;
  int idBytes_;
  std::string key_;
  uint64_t written_ = 0;  // ids so far
  std::vector<uint64_t> offsets_;
  std::vector<uint16_t> sourceLengths_, targetLengths_;
  std::vector<unsigned char> buffer_;
};

}  // namespace nmt
