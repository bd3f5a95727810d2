#include "train/TrainingCurves.h"

#include "util/AtomicFile.h"
#include "util/InputError.h"
#include "util/XmlText.h"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <utility>

namespace nmt {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> splitCommas(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma - start));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

// from_chars, not strtod: the decimal point must not depend on the locale.
bool parseNumber(const std::string& text, double& value) {
  if (text.empty()) {
    value = kNaN;
    return true;
  }
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// A long title (a model directory's path) would run off the picture; keep its first code points.
std::string shortened(const std::string& text, std::size_t maxCodePoints) {
  std::size_t codePoints = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((text[i] & 0xC0) == 0x80) continue;
    if (++codePoints > maxCodePoints) return text.substr(0, i) + "…";
  }
  return text;
}

// Axis bounds on round numbers (1, 2 or 5 times a power of ten) that enclose the data.
struct Axis {
  double lo, hi, tick;

  double fraction(double v) const { return (v - lo) / (hi - lo); }
  int ticks() const { return static_cast<int>(std::lround((hi - lo) / tick)); }
  std::string label(double v) const {
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(tick) + 1e-9)));
    if (std::abs(v) < tick * 1e-6) v = 0.0;  // never "-0"
    if (tick >= 1000.0 && v != 0.0)  // "200k" and "1M": long runs' labels stay short and apart
      return std::fmod(v, 1e6) == 0.0 ? fmt::format("{:.0f}M", v / 1e6) : fmt::format("{:.0f}k", v / 1e3);
    return fmt::format("{:.{}f}", v, decimals);
  }
};

Axis niceAxis(double lo, double hi, int wantedTicks, double minTick) {
  if (hi - lo <= 1e-9 * std::max(1.0, std::abs(hi))) {  // one value: widen so it still gets an axis
    double pad = std::max(minTick, std::abs(lo) * 0.1);
    if (pad == 0.0) pad = 1.0;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / wantedTicks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  const double tick = std::max(minTick, (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * magnitude);
  return {std::floor(lo / tick + 1e-9) * tick, std::ceil(hi / tick - 1e-9) * tick, tick};
}

struct Box {
  double left, top, right, bottom;
};

struct Series {
  const char* cssClass;
  const char* label;  // in tooltips
  const char* color;
  bool markers;
  int decimals;
  std::vector<std::pair<double, double>> points;  // (step, value), finite only
};

const char* const kTrainColor = "#1f77b4";
const char* const kValidColor = "#e6550d";
const char* const kBleuColor = "#2ca02c";
constexpr int kWidth = 760, kHeight = 420;

class SvgPlot {
 public:
  SvgPlot(const std::vector<CurvePoint>& points, const Axis& steps) : steps_(steps) {
    // minutes as a non-decreasing function of step, to place round minutes on the top axis
    for (const auto& p : points)
      if (std::isfinite(p.minutes)) clock_.emplace_back(static_cast<double>(p.step), p.minutes);
    std::stable_sort(clock_.begin(), clock_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 1; i < clock_.size(); ++i) clock_[i].second = std::max(clock_[i].second, clock_[i - 1].second);
  }

  // Frame, grid, ticks and axis titles of one panel; the y axis only when there is data for it.
  void axes(const Box& box, const Axis* values, const char* valueTitle) {
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#888\"/>\n",
        box.left, box.top, box.right - box.left, box.bottom - box.top);
    for (int i = 0; i <= steps_.ticks(); ++i) {
      const double step = steps_.lo + i * steps_.tick;
      const double px = x(box, step);
      if (i > 0 && i < steps_.ticks()) gridLine(px, box.top, px, box.bottom);
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", px, box.bottom + 16,
                         steps_.label(step));
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#333\">step</text>\n",
                       (box.left + box.right) / 2, box.bottom + 36);
    minutesAxis(box);
    if (values) {
      for (int i = 0; i <= values->ticks(); ++i) {
        const double v = values->lo + i * values->tick;
        const double py = y(box, *values, v);
        if (i > 0 && i < values->ticks()) gridLine(box.left, py, box.right, py);
        out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", box.left - 6, py + 4,
                           values->label(v));
      }
    }
    const double cx = box.left - 44, cy = (box.top + box.bottom) / 2;
    out += fmt::format(
        "<text transform=\"translate({:.1f} {:.1f}) rotate(-90)\" text-anchor=\"middle\" fill=\"#333\">{}</text>\n", cx,
        cy, valueTitle);
  }

  void series(const Box& box, const Axis& values, const Series& s) {
    if (s.points.empty()) return;
    std::string coordinates;
    for (const auto& [step, v] : s.points)
      coordinates += fmt::format("{}{:.1f},{:.1f}", coordinates.empty() ? "" : " ", x(box, step), y(box, values, v));
    out += fmt::format(
        "<polyline class=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\" stroke-linejoin=\"round\" "
        "points=\"{}\"/>\n",
        s.cssClass, s.color, coordinates);
    // a lone point draws no line; many markers would only blur the line
    if (!(s.markers || s.points.size() == 1) || s.points.size() > 200) return;
    out += fmt::format("<g class=\"{}-markers\" fill=\"{}\">\n", s.cssClass, s.color);
    for (const auto& [step, v] : s.points)
      out +=
          fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.6\"><title>step {:.0f}: {} {:.{}f}</title></circle>\n",
                      x(box, step), y(box, values, v), step, s.label, v, s.decimals);
    out += "</g>\n";
  }

  void message(const Box& box, const char* text) {
    out +=
        fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"14\" fill=\"#777\">{}</text>\n",
                    (box.left + box.right) / 2, (box.top + box.bottom) / 2, text);
  }

  void legendEntry(double left, double baseline, const char* color, bool marker, const std::string& text) {
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"/>\n", left,
        baseline - 4, left + 22, baseline - 4, color);
    if (marker)
      out +=
          fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.6\" fill=\"{}\"/>\n", left + 11, baseline - 4, color);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", left + 28, baseline, text);
  }

  std::string out;

 private:
  double x(const Box& box, double step) const { return box.left + steps_.fraction(step) * (box.right - box.left); }
  static double y(const Box& box, const Axis& values, double v) {
    return box.bottom - values.fraction(v) * (box.bottom - box.top);
  }

  void gridLine(double x1, double y1, double x2, double y2) {
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e4e4e4\"/>\n", x1, y1,
                       x2, y2);
  }

  // Round minutes on the top edge, at the step where the run reached them (interpolated between
  // rows; never extrapolated past the first or last row).
  void minutesAxis(const Box& box) {
    if (clock_.empty()) return;
    const double first = clock_.front().second, last = clock_.back().second;
    std::vector<std::pair<double, std::string>> labels;  // (step, text)
    if (last - first < 1e-9) {
      labels.emplace_back(clock_.front().first, fmt::format("{:.1f}", first));
    } else {
      const Axis minutes = niceAxis(first, last, 6, 0.1);
      for (int i = 0; i <= minutes.ticks(); ++i) {
        const double m = minutes.lo + i * minutes.tick;
        if (m < first - 1e-9 || m > last + 1e-9) continue;
        const auto after =
            std::find_if(clock_.begin(), clock_.end(), [&](const auto& c) { return c.second >= m - 1e-9; });
        double step = after->first;
        if (after != clock_.begin() && after->second > (after - 1)->second) {
          const auto& before = *(after - 1);
          step = before.first + (m - before.second) / (after->second - before.second) * (after->first - before.first);
        }
        labels.emplace_back(step, minutes.label(m));
      }
    }
    double lastLabelX = -1e9;
    for (const auto& [step, text] : labels) {
      const double px = x(box, step);
      if (px - lastLabelX < 40) continue;  // a stall in the clock would stack labels
      lastLabelX = px;
      out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#888\"/>\n", px,
                         box.top - 4, px, box.top);
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#555\">{}</text>\n", px,
                         box.top - 7, text);
    }
    if (!labels.empty())
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#555\">minutes</text>\n",
                         (box.left + box.right) / 2, box.top - 24);
  }

  Axis steps_;
  std::vector<std::pair<double, double>> clock_;  // (step, minutes)
};

Axis valueAxis(const std::vector<const Series*>& all, bool fromZero) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Series* s : all)
    for (const auto& p : s->points) {
      lo = std::min(lo, p.second);
      hi = std::max(hi, p.second);
    }
  if (fromZero) {  // scores: 0 at the bottom, and all zeros still get an axis upwards
    lo = std::min(lo, 0.0);
    hi = std::max(hi, lo + 1.0);
  }
  return niceAxis(lo, hi, 5, 0.0);
}

}  // namespace

std::vector<CurvePoint> readMetricsCsv(const std::string& csvText, const std::string& name) {
  static const char* const kColumns[] = {"step", "elapsed_s", "train_loss", "valid_loss", "valid_bleu"};
  std::vector<CurvePoint> points;
  std::vector<std::size_t> index;  // of kColumns in a row
  std::size_t headerFields = 0, lineNumber = 0, start = 0;
  while (start < csvText.size()) {
    std::size_t end = csvText.find('\n', start);
    if (end == std::string::npos) end = csvText.size();
    std::string line = csvText.substr(start, end - start);
    start = end + 1;
    ++lineNumber;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto fields = splitCommas(line);
    const auto where = fmt::format("{}:{}: ", name, lineNumber);
    if (index.empty()) {
      for (const char* column : kColumns) {
        const auto found = std::find(fields.begin(), fields.end(), column);
        if (found == fields.end()) throw InputError(where + "the header has no column " + column);
        index.push_back(static_cast<std::size_t>(found - fields.begin()));
      }
      headerFields = fields.size();
      continue;
    }
    if (fields.size() != headerFields)
      throw InputError(where + fmt::format("{} fields where the header has {}", fields.size(), headerFields));
    CurvePoint p{};
    const std::string& step = fields[index[0]];
    const auto [stepEnd, stepError] = std::from_chars(step.data(), step.data() + step.size(), p.step);
    if (step.empty() || stepError != std::errc() || stepEnd != step.data() + step.size())
      throw InputError(where + "step '" + step + "' is not an integer");
    double* const values[] = {&p.minutes, &p.trainLoss, &p.validLoss, &p.validBleu};
    for (std::size_t c = 1; c < std::size(kColumns); ++c)
      if (!parseNumber(fields[index[c]], *values[c - 1]))
        throw InputError(where + kColumns[c] + " '" + fields[index[c]] + "' is not a number");
    p.minutes /= 60.0;
    points.push_back(p);
  }
  return points;
}

std::string trainingCurvesSvg(const std::vector<CurvePoint>& points, const std::string& title) {
  std::string head = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n<title>{2}</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"16\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{3}</text>\n",
      kWidth, kHeight, xmlEscaped(title), xmlEscaped(shortened(title, 90)));
  if (points.empty())
    return head + fmt::format(
                      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"16\" fill=\"#777\">no metrics "
                      "yet</text>\n</svg>\n",
                      kWidth / 2, kHeight / 2);

  Series train{"train-loss", "training loss", kTrainColor, false, 3, {}};
  Series valid{"valid-loss", "validation loss", kValidColor, true, 3, {}};
  Series bleu{"valid-bleu", "BLEU", kBleuColor, true, 2, {}};
  double lowStep = static_cast<double>(points.front().step), highStep = lowStep;
  for (const auto& p : points) {
    const auto step = static_cast<double>(p.step);
    lowStep = std::min(lowStep, step);
    highStep = std::max(highStep, step);
    if (std::isfinite(p.trainLoss)) train.points.emplace_back(step, p.trainLoss);
    if (std::isfinite(p.validLoss)) valid.points.emplace_back(step, p.validLoss);
    if (std::isfinite(p.validBleu)) bleu.points.emplace_back(step, p.validBleu);
  }
  Axis steps = niceAxis(lowStep, highStep, 5, 1.0);
  if (lowStep >= 0 && steps.lo < 0) steps.lo = 0;

  SvgPlot plot(points, steps);
  plot.out = std::move(head);
  const Box lossBox{64, 92, 354, 364}, bleuBox{448, 92, 738, 364};

  plot.legendEntry(lossBox.left, 50, kTrainColor, false, "training loss");
  plot.legendEntry(lossBox.left + 120, 50, kValidColor, true, "validation loss");
  if (train.points.empty() && valid.points.empty()) {
    plot.axes(lossBox, nullptr, "loss");
    plot.message(lossBox, "no losses yet");
  } else {
    const Axis loss = valueAxis({&train, &valid}, false);
    plot.axes(lossBox, &loss, "loss");
    plot.series(lossBox, loss, train);
    plot.series(lossBox, loss, valid);
  }

  std::string bleuLegend = "validation BLEU";
  if (bleu.points.empty()) {
    plot.axes(bleuBox, nullptr, "BLEU");
    plot.message(bleuBox, "no validation yet");
  } else {
    const Axis scores = valueAxis({&bleu}, true);
    plot.axes(bleuBox, &scores, "BLEU");
    plot.series(bleuBox, scores, bleu);
    const auto best = std::max_element(bleu.points.begin(), bleu.points.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    bleuLegend += fmt::format(" (best {:.2f} at step {:.0f})", best->second, best->first);
  }
  plot.legendEntry(bleuBox.left, 50, kBleuColor, true, bleuLegend);
  return plot.out + "</svg>\n";
}

void writeTrainingCurves(const std::string& metricsCsvPath, const std::string& svgPath, const std::string& title) {
  std::ifstream in(metricsCsvPath, std::ios::binary);
  if (!in) throw InputError("cannot read " + metricsCsvPath + ": " + std::strerror(errno));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw InputError("error reading " + metricsCsvPath);
  writeTextFileAtomically(svgPath, trainingCurvesSvg(readMetricsCsv(text, metricsCsvPath), title));
}

}  // namespace nmt
