// nmt-distill: a student trained on a teacher's translations (sequence-level knowledge distillation,
// Kim & Rush 2016) in one command: the teacher translates its training sources into the student's
// folder, resumably; the pairs it got wrong may be dropped; then the student trains there as nmt-train
// would train it.
#include "StudentPreset.h"
#include "common/AppMain.h"
#include "common/SharedOptions.h"
#include "data/ModelDirectory.h"
#include "decode/Translator.h"
#include "distill/DistillationFilter.h"
#include "distill/StudentDirectory.h"
#include "distill/TeacherTranslations.h"
#include "train/TrainingOptions.h"
#include "util/AtomicFile.h"
#include "util/CudaRuntime.h"
#include "util/FileSystem.h"
#include "util/LongCall.h"
#include "util/OptionTable.h"
#include "util/Progress.h"
#include "util/StopSignal.h"

#include <boost/program_options.hpp>
#include <fmt/core.h>

#include <cmath>

namespace po = boost::program_options;
using namespace nmt;

namespace {

const char* const kUsage =
    "nmt-distill --teacher DIR --model-dir STUDENT [--config student.ini] [options] [nmt-train's options]\n"
    "The teacher translates its training sources into STUDENT/distilled (resumable: run the same command\n"
    "again to continue), then the student trains on them in STUDENT. Any option not listed here is\n"
    "nmt-train's (nmt-train --help) and goes to the student's training: its model, schedule, threads.";

// nmt-train's options that nmt-distill sets itself.
const char* const kDistillationSets[] = {"train-src", "train-tgt", "train", "valid-src", "valid-tgt", "valid",
                                         "model-dir", "resume", "processes"};

void refuseSetOptions(const std::vector<std::string>& training) {
  for (const auto& argument : training)
    for (const char* name : kDistillationSets) {
      const std::string option = std::string("--") + name;
      if (argument == option || argument.rfind(option + "=", 0) == 0)
        throw po::error(fmt::format("{} is nmt-distill's to set (the student trains on the teacher's translations, "
                                    "in --model-dir)",
                                    option));
    }
}

std::string minutes(double seconds) {
  return seconds < 90 ? fmt::format("{:.0f} s", seconds) : fmt::format("{:.0f} min", seconds / 60);
}

// The teacher's translations of `sources` in the teacher file; false when a signal stopped it.
bool translateWithTeacher(const DistillationSource& source, const std::string& sources, const DistillationFiles& files,
                          const RuntimeOptions& runtimeOptions, Progress& progress) {
  const Runtime runtime = app::startProgram(runtimeOptions, ModelUse::kTranslation);
  auto teacher = app::loadModelFor(app::ModelOptions{}, source.teacherDir, runtime);
  TranslatorOptions options;
  options.decoding.beamSize = source.teacherBeam;
  options.decoding.scores = true;
  options.interrupted = [] { return StopSignal::received() != 0; };
  Translator translator(teacher, options);
  try {
    const auto done = translateIntoTeacherFile(
        translator, sources, files.teacher(), 4096, [] { return StopSignal::received() != 0; },
        [&](const TeacherProgress& p) {
          const double rate = p.thisRun / std::max(p.seconds, 1e-9);
          progress.message(fmt::format("nmt-distill: teacher: {} of {} sentences, {} in this run ({:.0f} a second; "
                                       "about {} left)",
                                       p.done, p.total, p.thisRun, rate,
                                       minutes((p.total - p.done) / std::max(rate, 1e-9))));
        });
    return StopSignal::received() == 0 && done > 0;
  } catch (const Interrupted&) {
    return false;
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain("nmt-distill", [&] {
    app::setVersionDetails(runtimeDescription());
    DistillationSource source;
    DistillationFilter filter;
    std::string studentDir, config;
    OptionTable table("Distillation options");
    table.addRequired("teacher", source.teacherDir, "the teacher's model directory (nmt-train's)");
    table.addRequired("model-dir", studentDir,
                      "the student's model directory: the teacher's translations go to DIR/distilled, and the "
                      "student trains in DIR");
    table.addInvocation("source", source.sources,
                        "the sentences the teacher translates, one a line (default: its training sources, as its "
                        "config.ini names them)");
    table.add("teacher-beam", source.teacherBeam, "the teacher's beam (1: greedy search)");
    table.add("min-score", filter.minScorePerPiece,
              "drop the pairs whose teacher translation has a lower log-probability per piece than this (e.g. -1.5; "
              "0: keep all)");
    table.add("max-length-ratio", filter.maxLengthRatio,
              "drop the pairs where one side has more than this many times the other's pieces (e.g. 3; 0: keep all)");
    table.addInvocation("config", config,
                        "the student's training options (default: the built-in student preset, "
                        "configs/transformer-student.ini); nmt-train's options on the command line override it");
    po::variables_map vm;
    std::vector<std::string> passed;  // nmt-train's options, for the student
    if (!app::parseCommandLineWithOthers("nmt-distill", kUsage, argc, argv, table.description(), vm, passed)) return 0;
    refuseSetOptions(passed);
    app::optionValue([&] {
      checkDistillationFilter(filter);
      if (source.teacherBeam < 1 || source.teacherBeam > kMaxBeam)
        throw OptionError(fmt::format("`teacher-beam` must be between 1 and {}, not {}", kMaxBeam, source.teacherBeam));
    });

    StopSignal::install();
    Progress progress(stderr);
    const TeacherData teacher = teacherData(source.teacherDir);
    const DistillationFiles files(studentDir);
    app::optionValue([&] { checkSameDistillation(source, teacher, studentDir); });
    const bool resuming = ModelDirectory(studentDir).hasCheckpoint();
    std::vector<std::string> arguments{"--model-dir", studentDir};
    std::string presetDir;  // the built-in preset as a file, while the options are read
    if (resuming) {
      arguments.push_back("--resume");
      if (!config.empty()) arguments.insert(arguments.end(), {"--config", config});
    } else {
      if (config.empty()) {
        presetDir = files::makeTemporaryDirectory("nmt-distill");
        config = presetDir + "/student.ini";
        writeTextFileAtomically(config, kStudentPreset);
      }
      arguments.insert(arguments.end(), {"--config", config, "--train-src", files.trainSource(), "--train-tgt",
                                         files.trainTarget()});
      if (!teacher.validTsv.empty()) arguments.insert(arguments.end(), {"--valid", teacher.validTsv});
      else arguments.insert(arguments.end(), {"--valid-src", teacher.validSource, "--valid-tgt", teacher.validTarget});
      if (!teacher.sourceLanguage.empty()) arguments.insert(arguments.end(), {"--source-lang", teacher.sourceLanguage});
      if (!teacher.targetLanguage.empty()) arguments.insert(arguments.end(), {"--target-lang", teacher.targetLanguage});
    }
    arguments.insert(arguments.end(), passed.begin(), passed.end());
    // every training option checked before anything is written or the teacher's long work begins
    TrainingInvocation invocation;
    try {
      invocation = app::optionValue([&] { return parseTrainingArguments(arguments); });
    } catch (...) {
      if (!presetDir.empty()) files::removeAll(presetDir);
      throw;
    }
    if (!presetDir.empty()) files::removeAll(presetDir);
    const std::string sources = prepareStudentDirectory(source, teacher, studentDir);

    if (!translateWithTeacher(source, sources, files, invocation.request.runtime, progress)) {
      progress.message(fmt::format("nmt-distill: stopped; {} holds what the teacher translated: run the same command "
                                   "to continue",
                                   files.teacher()));
      return 128 + (StopSignal::received() ? StopSignal::received() : 2);
    }
    if (!resuming) {
      const auto counts = writeStudentPairs(sources, files.teacher(), filter, files.trainSource(), files.trainTarget());
      progress.message(fmt::format("nmt-distill: {} pairs for the student; left out: {} empty, {} below --min-score, "
                                   "{} past --max-length-ratio",
                                   counts.kept, counts.empty, counts.lowScore, counts.lengthRatio));
      if (counts.kept == 0)
        throw InputError("the filters left no pair to train the student on: loosen --min-score or --max-length-ratio");
    }

    const Runtime runtime = app::startProgram(invocation.request.runtime, ModelUse::kTraining);
    const auto outcome = runTraining(invocation.request, runtime, progress);
    switch (outcome.reason) {
      case StopReason::kSignal:
        progress.message(fmt::format("nmt-distill: {}; continue with the same command",
                                     app::programSpelling(outcome.message)));
        return 128 + outcome.signal;
      case StopReason::kNonFiniteLoss:
        progress.message("nmt-distill: error: " + app::programSpelling(outcome.message));
        return int{app::kExitFailure};
      default:
        progress.message("nmt-distill: done: " + app::programSpelling(outcome.message));
        return int{app::kExitOk};
    }
  });
}
