#include "util/ZipChecksums.h"

#include "util/Crc32.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace nmt {
namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50, kZip64End = 0x06064b50, kZip64Locator = 0x07064b50,
                   kDirectoryEntry = 0x02014b50, kLocalHeader = 0x04034b50;

// The mapped file, read little-endian with bounds checks.
struct Bytes {
  const unsigned char* data;
  uint64_t size;

  bool has(uint64_t at, uint64_t n) const { return at <= size && n <= size - at; }
  uint64_t read(uint64_t at, int n) const {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | data[at + static_cast<uint64_t>(i)];
    return v;
  }
};

class Mapping {
 public:
  explicit Mapping(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = p;
        size_ = static_cast<uint64_t>(st.st_size);
        ::madvise(p, size_, MADV_SEQUENTIAL);
      }
    }
    opened_ = true;
    ::close(fd);
  }
  ~Mapping() {
    if (data_) ::munmap(data_, size_);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  bool opened() const { return opened_; }
  Bytes bytes() const { return {static_cast<const unsigned char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  uint64_t size_ = 0;
  bool opened_ = false;
};

struct Directory {
  uint64_t entries = 0, offset = 0, size = 0;
};

// The end-of-central-directory record (zip64's where the plain one overflows), or a reason.
std::string findDirectory(const Bytes& b, Directory& d) {
  if (b.size < 22) return "truncated (no end of central directory)";
  uint64_t end = b.size - 22;
  const uint64_t lowest = b.size > 22 + 65535 ? b.size - 22 - 65535 : 0;  // a comment may follow it
  while (b.read(end, 4) != kEndOfDirectory) {
    if (end == lowest) return "truncated (no end of central directory)";
    --end;
  }
  d.entries = b.read(end + 10, 2);
  d.size = b.read(end + 12, 4);
  d.offset = b.read(end + 16, 4);
  if (d.entries == 0xFFFF || d.size == 0xFFFFFFFF || d.offset == 0xFFFFFFFF) {
    if (end < 20 || b.read(end - 20, 4) != kZip64Locator) return "damaged (no zip64 directory locator)";
    const uint64_t at = b.read(end - 20 + 8, 8);
    if (!b.has(at, 56) || b.read(at, 4) != kZip64End) return "damaged (bad zip64 end of central directory)";
    d.entries = b.read(at + 32, 8);
    d.size = b.read(at + 40, 8);
    d.offset = b.read(at + 48, 8);
  }
  if (!b.has(d.offset, d.size)) return "truncated (its central directory lies past its end)";
  return "";
}

}  // namespace

std::string zipArchiveDamage(const std::string& path) {
  const Mapping mapping(path);
  if (!mapping.opened()) return "";
  const Bytes b = mapping.bytes();
  if (b.size == 0) return "empty";
  if (!b.has(0, 4) || b.read(0, 4) != kLocalHeader) return "";  // not a zip archive at all
  Directory d;
  if (auto why = findDirectory(b, d); !why.empty()) return why;
  uint64_t at = d.offset;
  for (uint64_t i = 0; i < d.entries; ++i) {
    if (!b.has(at, 46) || b.read(at, 4) != kDirectoryEntry) return "damaged (bad central directory entry)";
    const uint64_t method = b.read(at + 10, 2), crc = b.read(at + 16, 4);
    uint64_t compressed = b.read(at + 20, 4), uncompressed = b.read(at + 24, 4), local = b.read(at + 42, 4);
    const uint64_t nameLength = b.read(at + 28, 2), extraLength = b.read(at + 30, 2), commentLength = b.read(at + 32, 2);
    if (!b.has(at + 46, nameLength + extraLength + commentLength)) return "damaged (bad central directory entry)";
    const std::string name(reinterpret_cast<const char*>(b.data + at + 46), nameLength);
    // zip64: the overflowing sizes and offset, in this order, in the extra field 0x0001
    for (uint64_t e = at + 46 + nameLength, endExtra = e + extraLength; e + 4 <= endExtra;) {
      const uint64_t id = b.read(e, 2), length = b.read(e + 2, 2);
      uint64_t field = e + 4;
      if (id == 1) {
        for (uint64_t* value : {&uncompressed, &compressed, &local})
          if (*value == 0xFFFFFFFF && field + 8 <= e + 4 + length) {
            *value = b.read(field, 8);
            field += 8;
          }
      }
      e += 4 + length;
    }
    if (!b.has(local, 30) || b.read(local, 4) != kLocalHeader) return "damaged (record " + name + " has no header)";
    const uint64_t start = local + 30 + b.read(local + 26, 2) + b.read(local + 28, 2);
    if (!b.has(start, compressed)) return "truncated (record " + name + " ends past the file's end)";
    if (method == 0) {
      if (compressed != uncompressed) return "damaged (record " + name + " has two sizes)";
      if (crc32(0, b.data + start, compressed) != crc) return "damaged (record " + name + " fails its CRC-32 check)";
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  return "";
}

}  // namespace nmt
