#include "TestSupport.h"
#include "attention/AttentionWriter.h"
#include "util/FileSystem.h"

#include <doctest/doctest.h>

using namespace nmt;
using nmt::test::errorOf;
using nmt::test::readFile;

namespace {

AttentionRecord record() {
  AttentionRecord r;
  r.sentence = 2;
  r.source = "ein \"Hund\", klein";
  r.translation = "a small dog";
  r.attention = {{"▁a", "</s>"}, {"▁ein", ",", "</s>"}, {{0.75f, 0.25f, 0.0f}, {0.125f, 0.0f, 0.875f}}};
  r.headMaps.push_back({"cross.layer1.head2", {{"▁a"}, {"▁ein"}, {{1.0f}}}});
  return r;
}

}  // namespace

TEST_CASE("attention writer: matrix CSV per sentence, an index with quoted fields, per-head files and an SVG") {
  const test::TempDir dir;
  const std::string out = dir.file("out");
  AttentionWriter writer(out, "matrix", true);
  writer.add(record());
  writer.finish();
  CHECK(readFile(out + "/index.csv") == "sentence,source,translation\n2,\"ein \"\"Hund\"\", klein\",a small dog\n");
  CHECK(readFile(out + "/000002.csv") ==
        ",▁ein,\",\",</s>\n▁a,0.750000,0.250000,0.000000\n</s>,0.125000,0.000000,0.875000\n");
  CHECK(readFile(out + "/000002.cross.layer1.head2.csv") == ",▁ein\n▁a,1.000000\n");
  const auto svg = readFile(out + "/000002.svg");
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("2: ein &quot;Hund&quot;, klein") != std::string::npos);
  CHECK_FALSE(files::exists(out + "/attention.csv"));
}

TEST_CASE("attention writer: the long format is one CSV, a row per weight; a bad format is refused") {
  const test::TempDir dir;
  const std::string out = dir.file("long");
  AttentionWriter writer(out, "long", false);
  writer.add(record());
  writer.finish();
  CHECK(readFile(out + "/attention.csv") ==
        "sentence,target_pos,target_piece,source_pos,source_piece,weight\n"
        "2,1,▁a,1,▁ein,0.750000\n2,1,▁a,2,\",\",0.250000\n2,1,▁a,3,</s>,0.000000\n"
        "2,2,</s>,1,▁ein,0.125000\n2,2,</s>,2,\",\",0.000000\n2,2,</s>,3,</s>,0.875000\n");
  CHECK_FALSE(files::exists(out + "/000002.csv"));
  CHECK_FALSE(files::exists(out + "/000002.svg"));
  CHECK(errorOf([&] { AttentionWriter bad(dir.file("x"), "wide", false); }) ==
        "format must be matrix or long, not 'wide'");
}
