#include "distill/StudentDirectory.h"

#include "data/ModelDirectory.h"
#include "util/AtomicFile.h"
#include "util/FileSystem.h"
#include "util/InputError.h"
#include "util/OutputFile.h"
#include "util/TextLineReader.h"

#include <fmt/core.h>

#include <fstream>
#include <sstream>

namespace nmt {
namespace {

std::string factsText(const DistillationSource& source, const std::string& sources) {
  return fmt::format("# what nmt-distill translated into teacher.tsv (a rerun must name the same)\n"
                     "teacher = {}\nsources = {}\nteacher-beam = {}\n",
                     files::absolutePath(source.teacherDir), files::absolutePath(sources), source.teacherBeam);
}

std::string readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A TSV's first column, one line a line (what a teacher trained on source<TAB>target lines translates).
void writeFirstColumn(const std::string& tsv, const std::string& path) {
  TextLineReader in(tsv);
  OutputFile out(path);
  std::string line;
  while (in.next(line)) out.stream() << line.substr(0, line.find('\t')) << '\n';
  out.commit();
}

// The sources a distillation translates (a TSV-trained teacher's written out), and the file they are read from.
std::pair<std::string, std::string> sourcesOf(const DistillationSource& source, const TeacherData& teacher,
                                              const DistillationFiles& files) {
  if (!source.sources.empty()) return {source.sources, source.sources};
  if (!teacher.trainSource.empty()) return {teacher.trainSource, teacher.trainSource};
  return {files.tsvSources(), teacher.trainTsv};
}

}  // namespace

void checkSameDistillation(const DistillationSource& source, const TeacherData& teacher,
                           const std::string& studentDir) {
  const DistillationFiles files(studentDir);
  if (files::exists(files.facts()) &&
      readWhole(files.facts()) != factsText(source, sourcesOf(source, teacher, files).second))
    throw OptionError(fmt::format("{} was distilled from another teacher, other sources or another beam ({}): "
                                  "name the same, or choose another `model-dir`",
                                  studentDir, files.facts()));
}

TeacherData teacherData(const std::string& teacherDir) {
  const ModelDirectory teacher(teacherDir);
  teacher.requireExisting();
  TeacherData data;
  data.trainSource = teacher.configValue("train-src");
  data.trainTsv = teacher.configValue("train");
  data.validSource = teacher.configValue("valid-src");
  data.validTarget = teacher.configValue("valid-tgt");
  data.validTsv = teacher.configValue("valid");
  data.sourceLanguage = teacher.configValue("source-lang");
  data.targetLanguage = teacher.configValue("target-lang");
  if (data.trainSource.empty() && data.trainTsv.empty())
    throw OptionError(teacher.config() + " names no training sources (train-src or train): give the sentences to "
                                        "translate with `source`");
  if (data.validTsv.empty() && (data.validSource.empty() || data.validTarget.empty()))
    throw InputError(teacher.config() + " names no validation set (valid-src and valid-tgt, or valid)");
  return data;
}

std::string prepareStudentDirectory(const DistillationSource& source, const TeacherData& teacher,
                                    const std::string& studentDir) {
  const DistillationFiles files(studentDir);
  const auto [sources, readFrom] = sourcesOf(source, teacher, files);
  if (!files::exists(readFrom))
    throw MissingFileError(fmt::format("the sources to translate, {}, do not exist", readFrom));
  checkSameDistillation(source, teacher, studentDir);
  files::createDirectories(files.dir());
  const ModelDirectory from(source.teacherDir), to(studentDir);
  if (!to.hasBpeModels()) {
    for (const auto& [a, b] : {std::pair{from.jointBpe(), to.jointBpe()}, std::pair{from.sourceBpe(), to.sourceBpe()},
                               std::pair{from.targetBpe(), to.targetBpe()}})
      if (files::exists(a)) copyFileAtomically(a, b);
    if (!to.hasBpeModels())
      throw InputError("model directory " + source.teacherDir + " has no BPE model (bpe.model, or source.model and "
                                                                 "target.model)");
  }
  if (!files::exists(files.facts())) writeTextFileAtomically(files.facts(), factsText(source, readFrom));
  if (sources != readFrom && !files::exists(sources)) writeFirstColumn(readFrom, sources);
  return sources;
}

}  // namespace nmt
