#include "data/PreparedCorpus.h"

#include "util/Crc32.h"
#include "util/FileFormat.h"
#include "util/InputError.h"
#include "util/OutputFile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <random>

namespace nmt {
namespace {

constexpr FileFormat kFormat{"prepared corpus", {'N', 'M', 'T', 'C', 'O', 'R', 'P', '1'}, PreparedCorpus::kVersion};

struct Trailer {
  char magic[8];
  uint32_t version, idBytes;
  uint64_t pairs, ids, keyBytes;
  uint64_t lines, emptySkipped, tooLongDropped;
  uint32_t crc, reserved;
};
constexpr std::size_t kCheckedTrailerBytes = offsetof(Trailer, crc);

constexpr uint64_t padded(uint64_t bytes) { return (bytes + 7) / 8 * 8; }

// Where each section starts, from the trailer's sizes.
struct Layout {
  uint64_t offsets, sourceLengths, targetLengths, key, trailer;
  explicit Layout(const Trailer& t)
      : offsets(padded(t.ids * t.idBytes)),
        sourceLengths(offsets + t.pairs * 8),
        targetLengths(sourceLengths + t.pairs * 2),
        key(padded(targetLengths + t.pairs * 2)),
        trailer(padded(key + t.keyBytes)) {}
};

class Fd {
 public:
  explicit Fd(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

bool readAt(int fd, void* into, std::size_t size, uint64_t at) {
  auto* p = static_cast<char*>(into);
  while (size > 0) {
    const ssize_t n = ::pread(fd, p, size, static_cast<off_t>(at));
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= static_cast<std::size_t>(n);
    at += static_cast<uint64_t>(n);
  }
  return true;
}

uint64_t fileSize(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// The trailer of an open file, or a reason it is not a prepared corpus of this version.
std::string readTrailer(int fd, Trailer& t) {
  const uint64_t size = fileSize(fd);
  if (size < sizeof(Trailer) || !readAt(fd, &t, sizeof t, size - sizeof t))
    return "not a prepared corpus file (too short)";
  if (auto problem = kFormat.identityProblem(t.magic, t.version); !problem.empty()) return problem;
  if ((t.idBytes != 2 && t.idBytes != 4) || t.pairs > size || t.ids > size || t.keyBytes > size ||
      Layout(t).trailer + sizeof t != size)
    return "truncated or damaged (its sizes do not add up)";
  return {};
}

}  // namespace

std::vector<int> PieceIds::vector() const {
  std::vector<int> out(size_);
  for (std::size_t i = 0; i < size_; ++i) out[i] = (*this)[i];
  return out;
}

struct PreparedCorpus::Storage {
  void* mapping = nullptr;
  std::size_t mappedBytes = 0;
  std::vector<unsigned char> ids;  // in memory: the arrays themselves
  std::vector<uint64_t> offsets;
  std::vector<uint16_t> sourceLengths, targetLengths;
  ~Storage() {
    if (mapping) ::munmap(mapping, mappedBytes);
  }
};

PreparedCorpus PreparedCorpus::fromPairs(const std::vector<EncodedPair>& pairs, const CorpusCounts& counts) {
  auto storage = std::make_shared<Storage>();
  std::vector<uint32_t> ids;
  for (const auto& p : pairs) {
    if (p.source.size() > kMaxLength || p.target.size() > kMaxLength)
      throw OptionError("line " + std::to_string(p.line) + " has more than " + std::to_string(kMaxLength) +
                        " pieces on a side; set `max-length`");
    storage->offsets.push_back(ids.size());
    storage->sourceLengths.push_back(static_cast<uint16_t>(p.source.size()));
    storage->targetLengths.push_back(static_cast<uint16_t>(p.target.size()));
    ids.insert(ids.end(), p.source.begin(), p.source.end());
    ids.insert(ids.end(), p.target.begin(), p.target.end());
  }
  storage->ids.resize(ids.size() * 4);
  if (!ids.empty()) std::memcpy(storage->ids.data(), ids.data(), storage->ids.size());
  PreparedCorpus corpus;
  corpus.idBytes_ = 4;
  corpus.ids_ = storage->ids.data();
  corpus.offsets_ = storage->offsets.data();
  corpus.sourceLengths_ = storage->sourceLengths.data();
  corpus.targetLengths_ = storage->targetLengths.data();
  corpus.pairs_ = pairs.size();
  corpus.totalIds_ = ids.size();
  corpus.path_ = "a corpus in memory";
  corpus.counts_ = counts;
  corpus.storage_ = std::move(storage);
  return corpus;
}

std::string PreparedCorpus::keyOf(const std::string& path) {
  const Fd fd(path);
  Trailer t{};
  if (fd.get() < 0 || !readTrailer(fd.get(), t).empty()) return {};
  std::string key(t.keyBytes, '\0');
  return readAt(fd.get(), key.data(), key.size(), Layout(t).key) ? key : std::string();
}

PreparedCorpus PreparedCorpus::open(const std::string& path) {
  const auto refuse = [&](const std::string& reason) {
    return InputError(path + ": " + reason + "; delete it and nmt-train prepares it again");
  };
  const Fd fd(path);
  if (fd.get() < 0) throw InputError("cannot open " + path + ": " + std::strerror(errno));
  Trailer t{};
  if (const auto problem = readTrailer(fd.get(), t); !problem.empty()) throw refuse(problem);
  // checked through read(), not the mapping: the pages go to the page cache, not to this process
  const Layout layout(t);
  std::vector<unsigned char> chunk(1 << 20);
  uint32_t crc = 0;
  for (uint64_t at = 0; at < layout.trailer;) {
    const auto n = static_cast<std::size_t>(std::min<uint64_t>(chunk.size(), layout.trailer - at));
    if (!readAt(fd.get(), chunk.data(), n, at)) throw refuse(std::string("cannot read it: ") + std::strerror(errno));
    crc = crc32(crc, chunk.data(), n);
    at += n;
  }
  crc = crc32(crc, reinterpret_cast<const unsigned char*>(&t), kCheckedTrailerBytes);
  if (const auto problem = FileFormat::checksumProblem(t.crc, crc); !problem.empty()) throw refuse(problem);

  auto storage = std::make_shared<Storage>();
  storage->mappedBytes = static_cast<std::size_t>(layout.trailer + sizeof t);
  storage->mapping = ::mmap(nullptr, storage->mappedBytes, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (storage->mapping == MAP_FAILED) {
    storage->mapping = nullptr;
    throw InputError("cannot map " + path + ": " + std::strerror(errno));
  }
  const auto* base = static_cast<const unsigned char*>(storage->mapping);
  PreparedCorpus corpus;
  corpus.idBytes_ = static_cast<int>(t.idBytes);
  corpus.ids_ = base;
  corpus.offsets_ = reinterpret_cast<const uint64_t*>(base + layout.offsets);
  corpus.sourceLengths_ = reinterpret_cast<const uint16_t*>(base + layout.sourceLengths);
  corpus.targetLengths_ = reinterpret_cast<const uint16_t*>(base + layout.targetLengths);
  corpus.pairs_ = static_cast<std::size_t>(t.pairs);
  corpus.counts_ = {t.lines, t.emptySkipped, t.tooLongDropped, t.pairs};
  corpus.key_.assign(reinterpret_cast<const char*>(base + layout.key), t.keyBytes);
  corpus.totalIds_ = t.ids;
  corpus.path_ = path;
  corpus.storage_ = std::move(storage);
  return corpus;
}

void PreparedCorpus::throwBeyondIds() const {
  throw InputError(path_ + ": damaged (a pair lies beyond its ids); delete it and nmt-train prepares it again");
}

std::vector<EncodedPair> PreparedCorpus::sample(std::size_t most, std::uint64_t seed) const {
  // at random within each stretch: evenly spaced picks can fall in step with a corpus's own period
  std::mt19937_64 rng(seed);
  std::vector<EncodedPair> out;
  const std::size_t n = std::min(most, pairs_);
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t first = k * pairs_ / n, end = (k + 1) * pairs_ / n;
    const std::size_t i = first + rng() % (end - first);
    out.push_back({source(i).vector(), target(i).vector(), i + 1});
  }
  return out;
}

// Bytes to the output file, counted and summed into the CRC as they go.
class PreparedCorpusWriter::Sink {
 public:
  explicit Sink(const std::string& path) : file_(path) {}
  void write(const void* data, std::size_t size) {
    file_.stream().write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    crc_ = crc32(crc_, static_cast<const unsigned char*>(data), size);
    bytes_ += size;
  }
  void padTo8() {
    static const char zeros[8] = {};
    write(zeros, padded(bytes_) - bytes_);
  }
  template <typename T>
  void array(const std::vector<T>& v) {
    write(v.data(), v.size() * sizeof(T));
  }
  uint32_t crc() const { return crc_; }
  OutputFile& file() { return file_; }

 private:
  OutputFile file_;
  uint32_t crc_ = 0;
  uint64_t bytes_ = 0;
};

PreparedCorpusWriter::PreparedCorpusWriter(const std::string& path, int64_t vocabulary, std::string key)
    : sink_(std::make_unique<Sink>(path)), idBytes_(vocabulary <= 65536 ? 2 : 4), key_(std::move(key)) {}

PreparedCorpusWriter::~PreparedCorpusWriter() = default;

void PreparedCorpusWriter::add(const std::vector<int>& source, const std::vector<int>& target) {
  offsets_.push_back(written_);
  sourceLengths_.push_back(static_cast<uint16_t>(source.size()));
  targetLengths_.push_back(static_cast<uint16_t>(target.size()));
  buffer_.resize((source.size() + target.size()) * static_cast<std::size_t>(idBytes_));
  std::size_t k = 0;
  for (const auto* side : {&source, &target})
    for (int id : *side) {
      if (idBytes_ == 2) {
        const auto v = static_cast<uint16_t>(id);
        std::memcpy(&buffer_[k], &v, 2);
      } else {
        const auto v = static_cast<uint32_t>(id);
        std::memcpy(&buffer_[k], &v, 4);
      }
      k += static_cast<std::size_t>(idBytes_);
    }
  sink_->write(buffer_.data(), buffer_.size());
  written_ += source.size() + target.size();
}

void PreparedCorpusWriter::commit(const CorpusCounts& counts) {
  sink_->padTo8();
  sink_->array(offsets_);
  sink_->array(sourceLengths_);
  sink_->array(targetLengths_);
  sink_->padTo8();
  sink_->write(key_.data(), key_.size());
  sink_->padTo8();
  Trailer t{};
  std::memcpy(t.magic, kFormat.magic, sizeof t.magic);
  t.version = kFormat.version;
  t.idBytes = static_cast<uint32_t>(idBytes_);
  t.pairs = offsets_.size();
  t.ids = written_;
  t.keyBytes = key_.size();
  t.lines = counts.lines;
  t.emptySkipped = counts.emptySkipped;
  t.tooLongDropped = counts.tooLongDropped;
  sink_->write(&t, kCheckedTrailerBytes);
  t.crc = sink_->crc();
  sink_->file().stream().write(reinterpret_cast<const char*>(&t) + kCheckedTrailerBytes,
                               static_cast<std::streamsize>(sizeof t - kCheckedTrailerBytes));
  sink_->file().commit();
}

}  // namespace nmt
