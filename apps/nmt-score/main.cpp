// nmt-score: corpus BLEU and chrF of a translation against references, as sacreBLEU computes them.
#include "common/AppMain.h"
#include "util/OptionTable.h"
#include "eval/Bleu.h"
#include "eval/Chrf.h"
#include "util/InputError.h"
#include "util/TextLineReader.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <string>
#include <vector>

namespace po = boost::program_options;
using namespace nmt;

namespace {

constexpr const char* kProgram = "nmt-score";

std::vector<std::string> splitMetrics(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string name = list.substr(start, end - start);
    if (name != "bleu" && name != "chrf")
      throw po::error("the argument ('" + list + "') for option '--metrics' is invalid: expected bleu, chrf or both");
    out.push_back(name);
    start = end + 1;
  }
  return out;
}

std::string jsonBleu(const BleuScore& s) {
  return fmt::format(
      "{{\"name\": \"BLEU\", \"score\": {:.2f}, \"precisions\": [{:.1f}, {:.1f}, {:.1f}, {:.1f}], \"bp\": {:.3f}, "
      "\"ratio\": {:.3f}, \"hyp_len\": {}, \"ref_len\": {}, \"tokenize\": \"13a\", \"smooth\": \"exp\", "
      "\"lowercase\": {}}}",
      s.score, s.precisions[0], s.precisions[1], s.precisions[2], s.precisions[3], s.brevityPenalty, s.ratio,
      s.hypLength, s.refLength, s.lowercase);
}

std::string jsonChrf(const ChrfScore& s) {
  return fmt::format("{{\"name\": \"chrF{}\", \"score\": {:.2f}, \"char_order\": {}, \"beta\": {}, \"lowercase\": {}}}",
                     s.beta, s.score, s.charOrder, s.beta, s.lowercase);
}

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain(kProgram, [&] {
    std::vector<std::string> refPaths;
    std::string hypPath = "-", metricList = "bleu,chrf";
    bool lowercase = false, asJson = false;
    OptionTable table("Scoring options");
    table.addRequired("ref,r", refPaths, "reference file(s), line-aligned with --hyp");
    table.add("hyp,i", hypPath, "translations to score, one a line ('-': stdin)");
    table.addFlag("lowercase,l", lowercase, "compare case-insensitively (Unicode lowercase)");
    // -m is --model in the other programs
    table.add("metrics", metricList, "bleu, chrf, or both comma-separated");
    table.addFlag("json", asJson, "print the figures as JSON");
    po::variables_map vm;
    if (!app::parseCommandLine(kProgram, "nmt-score --ref REF [REF...] [--hyp HYP] [--lowercase] [--json]", argc,
                               argv, table.description(), {}, vm))
      return int(app::kExitOk);
    const auto metrics = splitMetrics(metricList);

    const auto hyps = readLines(hypPath);
    std::vector<std::vector<std::string>> refs;
    for (const auto& path : refPaths) {
      refs.push_back(readLines(path));
      if (refs.back().size() != hyps.size())
        throw InputError(fmt::format("{} has {} lines but {} has {}; hypotheses and references must be line-aligned",
                                     hypPath == "-" ? "<stdin>" : hypPath, hyps.size(), path, refs.back().size()));
    }

    std::vector<std::string> plain, json;
    for (const auto& metric : metrics) {
      if (metric == "bleu") {
        const auto score = corpusBleu(hyps, refs, {lowercase, false});
        plain.push_back(score.format());
        json.push_back(jsonBleu(score));
      } else {
        const auto score = corpusChrf(hyps, refs, {2, 6, lowercase});
        plain.push_back(score.format());
        json.push_back(jsonChrf(score));
      }
    }
    if (asJson)
      fmt::print("[\n  {}\n]\n", fmt::join(json, ",\n  "));
    else
      fmt::print("{}\n", fmt::join(plain, "\n"));
    return int(app::kExitOk);
  });
}
