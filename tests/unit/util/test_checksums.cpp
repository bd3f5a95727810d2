#include "TestSupport.h"
#include "model/Seq2Seq.h"
#include "util/Crc32.h"
#include "util/ZipChecksums.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <vector>

using namespace nmt;

namespace {

const unsigned char* bytes(const std::string& s) { return reinterpret_cast<const unsigned char*>(s.data()); }

Seq2Seq smallModel() {
  ModelConfig c;
  c.sourceVocab = c.targetVocab = 40;
  c.embeddingSize = 8;
  c.hiddenSize = 12;
  torch::manual_seed(3);
  Seq2Seq model(c);
  model->initialize();
  return model;
}

}  // namespace

TEST_CASE("crc32 gives zip's (and zlib's) CRC-32, in one piece or several") {
  const std::string check = "123456789";
  CHECK(crc32(0, bytes(check), check.size()) == 0xCBF43926u);  // the standard check value
  CHECK(crc32(0, nullptr, 0) == 0u);
  std::string text;
  for (int i = 0; i < 1000; ++i) text += static_cast<char>((i * 37 + 11) % 256);
  const uint32_t whole = crc32(0, bytes(text), text.size());
  for (std::size_t cut : {1u, 7u, 8u, 13u, 500u, 999u})
    CHECK(crc32(crc32(0, bytes(text), cut), bytes(text) + cut, text.size() - cut) == whole);
  text[500] ^= 1;
  CHECK(crc32(0, bytes(text), text.size()) != whole);
}

TEST_CASE("crc32 equals the bit-by-bit definition at every length and alignment (the folded and table ways)") {
  const auto bitByBit = [](const unsigned char* p, std::size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) {
      c ^= p[i];
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
  };
  std::vector<unsigned char> data(70000);
  uint32_t state = 12345;
  for (auto& b : data) b = static_cast<unsigned char>((state = state * 1103515245u + 12345u) >> 24);
  for (std::size_t offset = 0; offset < 16; ++offset)
    for (std::size_t n = 0; n <= 300; ++n) {
      CAPTURE(offset);
      CAPTURE(n);
      REQUIRE(crc32(0, data.data() + offset, n) == bitByBit(data.data() + offset, n));
    }
  for (std::size_t n : {4096u, 4096u + 13u, 65536u + 7u, 69990u})
    CHECK(crc32(0, data.data() + 3, n) == bitByBit(data.data() + 3, n));
  std::vector<unsigned char> ones(1000, 0xFF), zeros(1000, 0);
  CHECK(crc32(0, ones.data(), ones.size()) == bitByBit(ones.data(), ones.size()));
  CHECK(crc32(0, zeros.data(), zeros.size()) == bitByBit(zeros.data(), zeros.size()));
  CHECK(crc32(crc32(0, data.data(), 100), data.data() + 100, 5000) == bitByBit(data.data(), 5100));
}

TEST_CASE("a damaged or truncated model file is refused naming it; a whole one loads") {
  test::TempDir dir;
  const std::string path = dir.file("model.pt");
  auto model = smallModel();
  saveModel(model, path);
  CHECK(zipArchiveDamage(path).empty());
  CHECK_NOTHROW(loadModel(path, torch::kCPU));
  const std::string whole = test::readFile(path);

  // one byte flipped inside a weight record: LibTorch alone would load it
  std::string flipped = whole;
  flipped[whole.size() / 2] = static_cast<char>(flipped[whole.size() / 2] ^ 0x40);
  test::writeFile(path, flipped);
  const std::string damage = zipArchiveDamage(path);
  CHECK(damage.rfind("damaged (record ", 0) == 0);
  CHECK(damage.find(" fails its CRC-32 check)") != std::string::npos);
  CHECK(test::errorOf([&] { loadModel(path, torch::kCPU); }) == "cannot load model " + path + ": " + damage);

  test::writeFile(path, whole.substr(0, whole.size() - 100));
  CHECK(zipArchiveDamage(path) == "truncated (no end of central directory)");
  test::writeFile(path, whole.substr(0, whole.size() / 2) + whole.substr(whole.size() - 22));
  CHECK(zipArchiveDamage(path).find("past") != std::string::npos);  // the directory's offset points past the end
  test::writeFile(path, "");
  CHECK(zipArchiveDamage(path) == "empty");
  test::writeFile(path, "not a zip archive at all");
  CHECK(zipArchiveDamage(path).empty());  // not this check's to name: the reader says what it is
}
