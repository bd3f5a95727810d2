#pragma once

#include <cstdint>
#include <string>

namespace nmt {

// What a distillation is made from: the teacher, the source sentences it translates, and how.
struct DistillationSource {
  std::string teacherDir;
  std::string sources;       // one sentence a line; "" for the teacher's training sources (its config.ini)
  int64_t teacherBeam = 5;
};

// The teacher's data files as its config.ini records them (absolute, as nmt-train writes them).
struct TeacherData {
  std::string trainSource, trainTsv;                // one of them
  std::string validSource, validTarget, validTsv;   // the first two, or the third
  std::string sourceLanguage, targetLanguage;       // "" unknown
};
// InputError naming the teacher's config.ini when it names no training sources or no validation set.
TeacherData teacherData(const std::string& teacherDir);

// A distillation's files, in the student's model directory: STUDENT/distilled/.
class DistillationFiles {
 public:
  explicit DistillationFiles(const std::string& studentDir) : dir_(studentDir + "/distilled") {}
  const std::string& dir() const { return dir_; }
  std::string facts() const { return dir_ + "/distillation.ini"; }  // what it was made from (DistillationSource)
  std::string tsvSources() const { return dir_ + "/sources.txt"; }  // a TSV-trained teacher's sources, written out
  std::string teacher() const { return dir_ + "/teacher.tsv"; }     // TeacherTranslations.h, a line a source line
  std::string trainSource() const { return dir_ + "/train.src"; }   // the student's pairs (DistillationFilter.h)
  std::string trainTarget() const { return dir_ + "/train.tgt"; }

 private:
  std::string dir_;
};

// OptionError when the student's folder holds a distillation made from another teacher, other sources
// or another beam (its DistillationFiles::facts).
void checkSameDistillation(const DistillationSource& source, const TeacherData& teacher, const std::string& studentDir);

// The student's model directory made ready for the teacher's translations: created, the teacher's BPE
// model(s) copied in (the student keeps its vocabulary), and what the distillation is made from
// recorded, or, where it was already, compared (checkSameDistillation). Returns the file of sources to translate (a TSV-trained
// teacher's first column, written out once).
std::string prepareStudentDirectory(const DistillationSource& source, const TeacherData& teacher,
                                    const std::string& studentDir);

}  // namespace nmt
