#include "distill/Distillation.h"

#include "data/ModelDirectory.h"
#include "decode/DecodingOptions.h"
#include "decode/TranslationModel.h"
#include "decode/Translator.h"
#include "distill/StudentPreset.h"
#include "distill/TeacherTranslations.h"
#include "train/TrainingRun.h"
#include "util/AtomicFile.h"
#include "util/FileSystem.h"
#include "util/InputError.h"
#include "util/LongCall.h"
#include "util/Progress.h"
#include "util/Runtime.h"
#include "util/StopSignal.h"

#include <fmt/core.h>

#include <algorithm>

namespace nmt {
namespace {

constexpr std::size_t kChunk = 4096;  // sentences translated and written at a time

// The built-in preset as a file for as long as the student's options are read.
class PresetFile {
 public:
  PresetFile() : dir_(files::makeTemporaryDirectory("nmt-distill")) {
    writeTextFileAtomically(path(), kStudentPreset);
  }
  ~PresetFile() { files::removeAll(dir_); }
  PresetFile(const PresetFile&) = delete;
  PresetFile& operator=(const PresetFile&) = delete;
  std::string path() const { return dir_ + "/student.ini"; }

 private:
  std::string dir_;
};

std::string duration(double seconds) {
  return seconds < 90 ? fmt::format("{:.0f} s", seconds) : fmt::format("{:.0f} min", seconds / 60);
}

// The teacher's translations of `sources` in the teacher file (the teacher loaded only where the file
// lacks some); false when a signal stopped them.
bool translateWithTeacher(const DistillationSource& source, const std::string& sources, const DistillationFiles& files,
                          const RuntimeOptions& runtimeOptions, Progress& progress) {
  const TeacherProgress start = teacherFileProgress(sources, files.teacher());
  if (start.done == start.total) return true;
  const Runtime runtime = startRuntime(runtimeOptions, ModelUse::kTranslation);
  auto teacher = loadTranslationModel(source.teacherDir, runtime);
  TranslatorOptions options;
  options.decoding.beamSize = source.teacherBeam;
  options.decoding.scores = true;
  const auto stop = [] { return StopSignal::received() != 0; };
  options.interrupted = stop;
  Translator translator(teacher, options);
  try {
    translateIntoTeacherFile(translator, sources, files.teacher(), start, kChunk, stop, [&](const TeacherProgress& p) {
      const double rate = p.thisRun / std::max(p.seconds, 1e-9);
      progress.message(fmt::format("teacher: {} of {} sentences, {} in this run ({:.0f} a second; about {} left)",
                                   p.done, p.total, p.thisRun, rate,
                                   duration((p.total - p.done) / std::max(rate, 1e-9))));
    });
  } catch (const Interrupted&) {
  }
  return !stop();
}

}  // namespace

const std::vector<std::string>& distillationSetOptions() {
  static const std::vector<std::string> names{"train-src", "train-tgt", "train",  "valid-src", "valid-tgt",
                                              "valid",     "model-dir", "resume", "processes"};
  return names;
}

DistillationOutcome runDistillation(const DistillationRequest& request, const StudentOptions& studentOptions,
                                    Progress& progress) {
  checkDistillationFilter(request.filter);
  if (request.source.teacherBeam < 1 || request.source.teacherBeam > kMaxBeam)
    throw OptionError(
        fmt::format("`teacher-beam` must be between 1 and {}, not {}", kMaxBeam, request.source.teacherBeam));
  if (request.studentDir.empty()) throw OptionError("`model-dir` is required");
  const TeacherData teacher = teacherData(request.source.teacherDir);
  checkSameDistillation(request.source, teacher, request.studentDir);
  const DistillationFiles files(request.studentDir);
  const bool resuming = ModelDirectory(request.studentDir).hasCheckpoint();

  // the student's options read (and so checked) before anything is written
  std::vector<std::pair<std::string, OptionValue>> values{{"model-dir", request.studentDir}};
  std::optional<PresetFile> preset;
  if (!request.config.empty()) {
    values.emplace_back("config", request.config);
  } else if (!resuming) {
    preset.emplace();
    values.emplace_back("config", preset->path());
  }
  if (resuming) {
    values.emplace_back("resume", true);
  } else {
    values.insert(values.end(), {{"train-src", files.trainSource()}, {"train-tgt", files.trainTarget()}});
    if (!teacher.validTsv.empty())
      values.emplace_back("valid", teacher.validTsv);
    else
      values.insert(values.end(), {{"valid-src", teacher.validSource}, {"valid-tgt", teacher.validTarget}});
    if (!teacher.sourceLanguage.empty()) values.emplace_back("source-lang", teacher.sourceLanguage);
    if (!teacher.targetLanguage.empty()) values.emplace_back("target-lang", teacher.targetLanguage);
  }
  const TrainingInvocation invocation = studentOptions(values);
  preset.reset();

  DistillationOutcome outcome;
  outcome.modelDir = request.studentDir;
  const std::string sources = prepareStudentDirectory(request.source, teacher, request.studentDir);
  if (!translateWithTeacher(request.source, sources, files, invocation.request.runtime, progress)) {
    outcome.stoppedTranslating = true;
    outcome.signal = StopSignal::received();
    return outcome;
  }
  if (!resuming) {
    const auto counts =
        writeStudentPairs(sources, files.teacher(), request.filter, files.trainSource(), files.trainTarget());
    progress.message(fmt::format("student pairs: {}; left out: {} empty, {} below the minimum score, {} past the "
                                 "length ratio",
                                 counts.kept, counts.empty, counts.lowScore, counts.lengthRatio));
    if (counts.kept == 0)
      throw InputError("the filters left no pair to train the student on: loosen the minimum score or the length ratio");
  }
  const Runtime runtime = startRuntime(invocation.request.runtime, ModelUse::kTraining);
  outcome.training = runTraining(invocation.request, runtime, progress);
  return outcome;
}

}  // namespace nmt
