#include "TestSupport.h"
#include "train/TrainingCurves.h"
#include "util/FileSystem.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

using namespace nmt;

namespace {

// As MetricsLog writes it: a log row every 100 steps, validation rows with empty training loss.
const std::string kMetrics =
    "step,epoch,train_loss,valid_loss,valid_ppl,valid_bleu,learning_rate,tokens_per_s,elapsed_s,workers\n"
    "100,1,7.000000,,,,0.001,5000.0,60.0,1\n"
    "200,1,6.000000,,,,0.001,5000.0,120.0,1\n"
    "200,1,,5.500000,244.6919,3.25,0.001,,150.0,1\n"
    "300,1,5.000000,,,,0.001,5000.0,210.0,1\n"
    "400,2,4.500000,4.800000,121.5104,8.50,0.001,5000.0,270.0,1\n";

// The number of points of the polyline of class `cssClass`, or -1 when there is none.
int polylinePoints(const std::string& svg, const std::string& cssClass) {
  const auto at = svg.find("<polyline class=\"" + cssClass + "\"");
  if (at == std::string::npos) return -1;
  const auto begin = svg.find("points=\"", at) + 8, end = svg.find('"', begin);
  int points = 1;
  for (auto i = begin; i < end; ++i) points += svg[i] == ' ';
  return points;
}

// The points attribute of the polyline of class `cssClass`, or "" when there is none.
std::string pointsOf(const std::string& svg, const std::string& cssClass) {
  const auto at = svg.find("<polyline class=\"" + cssClass + "\"");
  if (at == std::string::npos) return "";
  const auto begin = svg.find("points=\"", at) + 8;
  return svg.substr(begin, svg.find('"', begin) - begin);
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

// The x attribute of the first <text> element whose markup ends with `ending` ("...>label</text>").
std::string xOfText(const std::string& svg, const std::string& ending) {
  const auto end = svg.find(ending);
  if (end == std::string::npos) return "";
  const auto x = svg.rfind("<text x=\"", end) + 9;
  return svg.substr(x, svg.find('"', x) - x);
}

}  // namespace

TEST_CASE("metrics.csv: rows read by header name, empty validation fields are NaN") {
  const auto points = readMetricsCsv(kMetrics);
  REQUIRE(points.size() == 5);
  CHECK(points[0].step == 100);
  CHECK(points[0].minutes == doctest::Approx(1.0));
  CHECK(points[0].trainLoss == doctest::Approx(7.0));
  CHECK(std::isnan(points[0].validLoss));
  CHECK(std::isnan(points[0].validBleu));
  CHECK(points[2].step == 200);
  CHECK(points[2].minutes == doctest::Approx(2.5));
  CHECK(std::isnan(points[2].trainLoss));
  CHECK(points[2].validLoss == doctest::Approx(5.5));
  CHECK(points[2].validBleu == doctest::Approx(3.25));
  CHECK(points[4].step == 400);
  CHECK(points[4].minutes == doctest::Approx(4.5));
  CHECK(points[4].validBleu == doctest::Approx(8.5));
  CHECK(readMetricsCsv("").empty());
  CHECK(readMetricsCsv(std::string(kMetrics.substr(0, kMetrics.find('\n') + 1))).empty());
}

TEST_CASE("metrics.csv: logs without the workers column, CRLF lines and other column orders read the same") {
  const auto old = readMetricsCsv(
      "step,epoch,train_loss,valid_loss,valid_ppl,valid_bleu,learning_rate,tokens_per_s,elapsed_s\r\n"
      "50,1,8.25,,,,0.0005,4000.0,30.0\r\n"
      "\r\n"
      "100,1,7.5,7.0,1096.6332,1.50,0.0005,4100.0,90.0\r\n");
  REQUIRE(old.size() == 2);
  CHECK(old[0].step == 50);
  CHECK(old[0].minutes == doctest::Approx(0.5));
  CHECK(old[0].trainLoss == doctest::Approx(8.25));
  CHECK(std::isnan(old[0].validLoss));
  CHECK(old[1].validLoss == doctest::Approx(7.0));
  CHECK(old[1].validBleu == doctest::Approx(1.5));
  const auto shuffled = readMetricsCsv("valid_bleu,elapsed_s,valid_loss,step,train_loss\n12.5,600,3.5,1000,3.25\n");
  REQUIRE(shuffled.size() == 1);
  CHECK(shuffled[0].step == 1000);
  CHECK(shuffled[0].minutes == doctest::Approx(10.0));
  CHECK(shuffled[0].trainLoss == doctest::Approx(3.25));
  CHECK(shuffled[0].validLoss == doctest::Approx(3.5));
  CHECK(shuffled[0].validBleu == doctest::Approx(12.5));
}

TEST_CASE("metrics.csv: a malformed row or header throws naming the file and line") {
  const std::string header = kMetrics.substr(0, kMetrics.find('\n') + 1);
  const std::string good = "100,1,7.000000,,,,0.001,5000.0,60.0,1\n";
  CHECK(test::errorOf([&] { readMetricsCsv(header + good + "200,1,6.0,5.5\n"); }) ==
        "metrics.csv:3: 4 fields where the header has 10");
  CHECK(test::errorOf([&] {
          readMetricsCsv(header + "\n" + good + "300,1,abc,,,,0.001,5000.0,60.0,1\n", "run/m.csv");
        }) == "run/m.csv:4: train_loss 'abc' is not a number");
  CHECK(test::errorOf([&] { readMetricsCsv(header + "1e3,1,7.0,,,,0.001,5000.0,60.0,1\n"); }) ==
        "metrics.csv:2: step '1e3' is not an integer");
  CHECK(test::errorOf([&] { readMetricsCsv("step,epoch,train_loss\n1,1,7.0\n"); }) ==
        "metrics.csv:1: the header has no column elapsed_s");
}

TEST_CASE("training curves: a polyline per series, a point per value, axes, legend and an escaped title") {
  const auto svg = trainingCurvesSvg(readMetricsCsv(kMetrics), "run <de-en> & \"small\"");
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"420\"") != std::string::npos);
  CHECK(svg.size() - svg.rfind("</svg>\n") == 7);
  CHECK(occurrences(svg, "<polyline") == 3);
  CHECK(polylinePoints(svg, "train-loss") == 4);  // the validation row at step 200 has no training loss
  CHECK(polylinePoints(svg, "valid-loss") == 2);
  CHECK(polylinePoints(svg, "valid-bleu") == 2);
  CHECK(occurrences(svg, "<circle cx") == 2 + 2 + 2);  // validation markers, and one per legend entry with markers
  for (const char* text : {">step</text>", ">loss</text>", ">BLEU</text>", ">minutes</text>", ">training loss</text>",
                           ">validation loss</text>", ">validation BLEU (best 8.50 at step 400)</text>"})
    CHECK_MESSAGE(svg.find(text) != std::string::npos, text);
  CHECK(svg.find("<title>run &lt;de-en&gt; &amp; &quot;small&quot;</title>") != std::string::npos);
  CHECK(svg.find("<de-en>") == std::string::npos);
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("href") == std::string::npos);
  // 2 minutes were reached at step 200: the minutes label sits above that step's label
  CHECK(xOfText(svg, "fill=\"#555\">2</text>") == xOfText(svg, ">200</text>"));
  CHECK_FALSE(xOfText(svg, ">200</text>").empty());
}

TEST_CASE("training curves: no rows, one row, no validation yet, values that are not finite") {
  const std::string header = kMetrics.substr(0, kMetrics.find('\n') + 1);
  const auto empty = trainingCurvesSvg({}, "t");
  CHECK(empty.rfind("<?xml", 0) == 0);
  CHECK(empty.find(">no metrics yet</text>") != std::string::npos);
  CHECK(empty.find("<polyline") == std::string::npos);

  const auto one = trainingCurvesSvg(readMetricsCsv(header + "100,1,7.000000,,,,0.001,5000.0,60.0,1\n"), "t");
  CHECK(polylinePoints(one, "train-loss") == 1);
  CHECK(one.find("<g class=\"train-loss-markers\"") != std::string::npos);  // a lone point draws no line
  CHECK(one.find(">no validation yet</text>") != std::string::npos);
  CHECK(polylinePoints(one, "valid-bleu") == -1);
  CHECK(one.find(">validation BLEU</text>") != std::string::npos);

  const auto odd = trainingCurvesSvg(readMetricsCsv(header +
                                                    "100,1,inf,,,,0.001,5000.0,60.0,1\n"
                                                    "200,1,6.0,nan,,-inf,0.001,5000.0,,1\n"
                                                    "300,1,5.0,5.2,,4.00,0.001,5000.0,180.0,1\n"),
                                     "t");
  CHECK(polylinePoints(odd, "train-loss") == 2);
  CHECK(polylinePoints(odd, "valid-loss") == 1);
  CHECK(polylinePoints(odd, "valid-bleu") == 1);
  CHECK(odd.find("nan") == std::string::npos);
  CHECK(odd.find("inf") == std::string::npos);

  const auto noLosses = trainingCurvesSvg({{10, 0.5, NAN, NAN, NAN}}, "t");
  CHECK(noLosses.find(">no losses yet</text>") != std::string::npos);
  CHECK(noLosses.find(">no validation yet</text>") != std::string::npos);
}

TEST_CASE("training curves: long runs label thousands of steps as k and millions as M") {
  std::vector<CurvePoint> points;
  for (int64_t step = 50000; step <= 1000000; step += 50000)
    points.push_back({step, static_cast<double>(step) / 1000.0, 3.0, NAN, NAN});
  const auto svg = trainingCurvesSvg(points, "t");
  for (const char* label : {">0</text>", ">200k</text>", ">800k</text>", ">1M</text>"})
    CHECK_MESSAGE(svg.find(label) != std::string::npos, label);
  CHECK(svg.find(">1000000</text>") == std::string::npos);
  CHECK(svg.find(">1000k</text>") == std::string::npos);
}

TEST_CASE("training curves: each value where it belongs (worked out by hand), and the same bytes for the same metrics") {
  // Steps 100..400 span the panels' 290 px (x = left + (step - 100) / 300 * 290, left 64 and 448);
  // losses 4.5..7.0 and BLEU 0..10 (ticks of 0.5 and 2) span 272 px up from y = 364.
  const auto svg = trainingCurvesSvg(readMetricsCsv(kMetrics), "run");
  CHECK(pointsOf(svg, "train-loss") == "64.0,92.0 160.7,200.8 257.3,309.6 354.0,364.0");  // 7, 6, 5, 4.5
  CHECK(pointsOf(svg, "valid-loss") == "160.7,255.2 354.0,331.4");                        // 5.5, 4.8
  CHECK(pointsOf(svg, "valid-bleu") == "544.7,275.6 738.0,132.8");                        // 3.25, 8.5
  for (const char* element :
       {"<circle cx=\"160.7\" cy=\"255.2\" r=\"2.6\"><title>step 200: validation loss 5.500</title></circle>",
        "<circle cx=\"354.0\" cy=\"331.4\" r=\"2.6\"><title>step 400: validation loss 4.800</title></circle>",
        "<circle cx=\"544.7\" cy=\"275.6\" r=\"2.6\"><title>step 200: BLEU 3.25</title></circle>",
        "<circle cx=\"738.0\" cy=\"132.8\" r=\"2.6\"><title>step 400: BLEU 8.50</title></circle>",
        // the axes' labels: steps below both panels, losses and BLEU on their left
        "<text x=\"257.3\" y=\"380.0\" text-anchor=\"middle\">300</text>",
        "<text x=\"641.3\" y=\"380.0\" text-anchor=\"middle\">300</text>",
        "<text x=\"58.0\" y=\"368.0\" text-anchor=\"end\">4.5</text>",
        "<text x=\"58.0\" y=\"150.4\" text-anchor=\"end\">6.5</text>",
        "<text x=\"58.0\" y=\"96.0\" text-anchor=\"end\">7.0</text>",
        "<text x=\"442.0\" y=\"368.0\" text-anchor=\"end\">0</text>",
        "<text x=\"442.0\" y=\"96.0\" text-anchor=\"end\">10</text>",
        // 3 minutes, between 2.5 at step 200 and 3.5 at step 300: at step 250; 4 minutes at step 350
        "<text x=\"209.0\" y=\"85.0\" text-anchor=\"middle\" fill=\"#555\">3</text>",
        "<text x=\"305.7\" y=\"85.0\" text-anchor=\"middle\" fill=\"#555\">4</text>"})
    CHECK_MESSAGE(svg.find(element) != std::string::npos, element);
  // the same metrics give these same bytes again, read anew or not
  const auto points = readMetricsCsv(kMetrics);
  CHECK(trainingCurvesSvg(points, "run") == svg);
  CHECK(trainingCurvesSvg(readMetricsCsv(kMetrics), "run") == svg);
}

TEST_CASE("writeTrainingCurves writes the SVG beside metrics.csv and names a CSV it cannot read") {
  test::TempDir dir;
  test::writeFile(dir.file("metrics.csv"), kMetrics);
  writeTrainingCurves(dir.file("metrics.csv"), dir.file("curves.svg"), "run");
  const auto svg = test::readFile(dir.file("curves.svg"));
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg == trainingCurvesSvg(readMetricsCsv(kMetrics), "run"));
  CHECK_FALSE(files::exists(dir.file("curves.svg.tmp")));
  writeTrainingCurves(dir.file("metrics.csv"), dir.file("curves.svg"), "run");  // rewritten in place
  CHECK(test::readFile(dir.file("curves.svg")) == svg);

  CHECK(test::errorOf([&] { writeTrainingCurves(dir.file("none.csv"), dir.file("x.svg"), "run"); }) ==
        "cannot read " + dir.file("none.csv") + ": No such file or directory");
  CHECK_FALSE(files::exists(dir.file("x.svg")));
  test::writeFile(dir.file("bad.csv"), kMetrics + "500,2\n");
  CHECK(test::errorOf([&] { writeTrainingCurves(dir.file("bad.csv"), dir.file("x.svg"), "run"); }) ==
        dir.file("bad.csv") + ":7: 2 fields where the header has 10");
}
