#include "TestSupport.h"
#include "util/AvailableLines.h"
#include "attention/Csv.h"
#include "attention/Heatmap.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <sstream>

using namespace nmt;

TEST_CASE("CSV fields are quoted as RFC 4180 wants and parse back") {
  CHECK(csvField("plain") == "plain");
  CHECK(csvField("a,b") == "\"a,b\"");
  CHECK(csvField("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csvField("two\nlines") == "\"two\nlines\"");
  CHECK(csvField(" padded") == "\" padded\"");
  CHECK(csvField("") == "");
  std::ostringstream out;
  const std::vector<std::string> row{"", "▁,", "\"", "x\ny", "ok"};
  writeCsvRow(out, row);
  writeCsvRow(out, {"1", "2"});
  CHECK(out.str() == ",\"▁,\",\"\"\"\",\"x\ny\",ok\n1,2\n");
  const auto back = parseCsv(out.str());
  REQUIRE(back.size() == 2);
  CHECK(back[0] == row);
  CHECK(back[1] == std::vector<std::string>{"1", "2"});
  CHECK(parseCsv("a,b\r\nc,d") == std::vector<std::vector<std::string>>{{"a", "b"}, {"c", "d"}});
}

TEST_CASE("available lines: waits for one line, then takes what is there, up to the maximum") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const std::string text = "one\ntwo\r\nthree\nfour";
  REQUIRE(write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  AvailableLines lines(fds[0]);
  std::vector<std::string> got;
  REQUIRE(lines.next(got, 2));
  CHECK(got == std::vector<std::string>{"one", "two\r"});
  got.clear();
  REQUIRE(lines.next(got, 10));  // "four" has no newline yet: only "three" is complete
  CHECK(got == std::vector<std::string>{"three"});
  close(fds[1]);
  got.clear();
  REQUIRE(lines.next(got, 10));  // at the end, the unterminated last line counts
  CHECK(got == std::vector<std::string>{"four"});
  got.clear();
  CHECK_FALSE(lines.next(got, 10));
  CHECK(got.empty());
  close(fds[0]);
}

TEST_CASE("text heatmap: a legend, a row per target piece, a shade per cell") {
  Heatmap map{{"▁the", "</s>"}, {"▁der", "</s>"}, {{1.0f, 0.0f}, {0.5f, 0.5f}}};
  CHECK(textHeatmap(map) ==
        "  source: 0=▁der 1=</s>\n"
        "       |01|\n"
        "  ▁the |@ |\n"
        "  </s> |++|\n");
  const auto svg = svgHeatmap(map, "1: <Der> & \"Die\"");
  CHECK(svg.find("<title>1: &lt;Der&gt; &amp; &quot;Die&quot;</title>") != std::string::npos);
  CHECK(svg.find("fill=\"rgb(0,0,0)\"") != std::string::npos);        // weight 1: black
  CHECK(svg.find("fill=\"rgb(255,255,255)\" stroke") != std::string::npos);  // weight 0: white
}
