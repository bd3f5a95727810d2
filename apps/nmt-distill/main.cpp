// nmt-distill: a student trained on a teacher's translations (sequence-level knowledge distillation,
// Kim & Rush 2016) in one command (lib/distill/Distillation.h); the options not its own are nmt-train's.
#include "common/AppMain.h"
#include "distill/Distillation.h"
#include "util/CudaRuntime.h"
#include "util/OptionTable.h"
#include "util/Progress.h"
#include "util/StopSignal.h"

#include <fmt/core.h>

#include <algorithm>

namespace po = boost::program_options;
using namespace nmt;

namespace {

const char* const kUsage =
    "nmt-distill --teacher DIR --model-dir STUDENT [--config student.ini] [options] [nmt-train's options]\n"
    "The teacher translates its training sources into STUDENT/distilled (run the same command again to\n"
    "continue after a stop), then the student trains on them in STUDENT. Any option not listed here is\n"
    "nmt-train's (nmt-train --help) and goes to the student's training: its model, schedule, threads.";

// The caller's nmt-train options, with none of those the distillation sets.
std::vector<std::string> studentArguments(std::vector<std::string> given) {
  for (const auto& argument : given)
    for (const auto& name : distillationSetOptions()) {
      const std::string option = "--" + name;
      if (argument == option || argument.rfind(option + "=", 0) == 0)
        throw po::error(fmt::format("{} is nmt-distill's to set (the student trains on the teacher's translations, "
                                    "in --model-dir)",
                                    option));
    }
  return given;
}

// nmt-train's command line: the distillation's options first, then the caller's.
std::vector<std::string> commandLine(const std::vector<std::pair<std::string, OptionValue>>& values,
                                     const std::vector<std::string>& given) {
  std::vector<std::string> arguments;
  for (const auto& [name, value] : values) {
    arguments.push_back("--" + name);
    if (const auto* text = std::get_if<std::string>(&value)) arguments.push_back(*text);
  }
  arguments.insert(arguments.end(), given.begin(), given.end());
  return arguments;
}

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain("nmt-distill", [&] {
    app::setVersionDetails(runtimeDescription());
    DistillationRequest request;
    OptionTable table("Distillation options");
    table.addRequired("teacher", request.source.teacherDir, "the teacher's model directory (nmt-train's)");
    table.addRequired("model-dir", request.studentDir,
                      "the student's model directory: the teacher's translations go to DIR/distilled, and the "
                      "student trains in DIR");
    table.addInvocation("source", request.source.sources,
                        "the sentences the teacher translates, one a line (default: its training sources, as its "
                        "config.ini names them)");
    table.add("teacher-beam", request.source.teacherBeam, "the teacher's beam (1: greedy search)");
    table.add("min-score", request.filter.minScorePerPiece,
              "drop the pairs whose teacher translation has a lower log-probability per piece than this (e.g. -1.5; "
              "0: keep all)");
    table.add("max-length-ratio", request.filter.maxLengthRatio,
              "drop the pairs where one side has more than this many times the other's pieces (e.g. 3; 0: keep all)");
    table.addInvocation("config", request.config,
                        "the student's training options (default: the built-in student preset, "
                        "configs/transformer-student.ini); nmt-train's options on the command line override it");
    po::variables_map vm;
    std::vector<std::string> given;  // nmt-train's options, for the student
    if (!app::parseCommandLineWithOthers("nmt-distill", kUsage, argc, argv, table.description(), vm, given)) return 0;
    given = studentArguments(std::move(given));

    StopSignal::install();
    Progress progress(stderr);
    DistillationOutcome outcome;
    try {
      outcome = runDistillation(
          request, [&](const auto& values) { return parseTrainingArguments(commandLine(values, given)); }, progress);
    } catch (const OptionError& e) {
      throw po::error(app::programSpelling(e));
    }
    if (outcome.stoppedTranslating) {
      progress.message("nmt-distill: stopped; " + outcome.modelDir +
                       "/distilled/teacher.tsv holds what the teacher translated: run the same command to continue");
      return 128 + outcome.signal;
    }
    switch (outcome.training.reason) {
      case StopReason::kSignal:
        progress.message(fmt::format("nmt-distill: {}; continue with the same command",
                                     app::programSpelling(outcome.training.message)));
        return 128 + outcome.training.signal;
      case StopReason::kNonFiniteLoss:
        progress.message("nmt-distill: error: " + app::programSpelling(outcome.training.message));
        return int{app::kExitFailure};
      default:
        progress.message("nmt-distill: done: " + app::programSpelling(outcome.training.message));
        return int{app::kExitOk};
    }
  });
}
