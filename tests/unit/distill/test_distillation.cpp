#include "TestSupport.h"
#include "distill/DistillationFilter.h"
#include "distill/TeacherTranslations.h"

#include <doctest/doctest.h>

using namespace nmt;
using test::readFile;
using test::writeFile;

TEST_CASE("a teacher line: written and read back; a line that is not one is refused naming where") {
  const TeacherLine line{-3.25, 7, 5, "A dog\truns."};  // a tab in the translation stays in it
  const std::string text = teacherLineText(line);
  CHECK(text == "-3.2500\t7\t5\tA dog\truns.");
  const auto back = parseTeacherLine(text, "t.tsv:1");
  CHECK(back.score == -3.25);
  CHECK(back.sourcePieces == 7);
  CHECK(back.targetPieces == 5);
  CHECK(back.translation == "A dog\truns.");
  CHECK(test::errorOf([] { parseTeacherLine("-1.0\t3", "t.tsv:2"); }) ==
        "t.tsv:2: not a teacher line (score, source pieces, target pieces, translation, tab-separated)");
  CHECK(test::errorOf([] { parseTeacherLine("low\t3\t2\tA dog.", "t.tsv:3"); }) ==
        "t.tsv:3: not a teacher line (its score and piece counts are not numbers)");
}

TEST_CASE("completeTeacherLines counts the whole lines and cuts a last line cut short off the file") {
  test::TempDir dir;
  const std::string path = dir.path() + "/teacher.tsv";
  CHECK(completeTeacherLines(path) == 0);  // not there yet
  writeFile(path, "-1.0\t2\t2\tA.\n-2.0\t3\t3\tB.\n-3.0\t4");
  CHECK(completeTeacherLines(path) == 2);
  CHECK(readFile(path) == "-1.0\t2\t2\tA.\n-2.0\t3\t3\tB.\n");
  CHECK(completeTeacherLines(path) == 2);
}

TEST_CASE("teacherFileProgress: the source lines and the teacher file's whole ones; a file longer than its sources is refused") {
  test::TempDir dir;
  const std::string sources = dir.path() + "/src", path = dir.path() + "/teacher.tsv";
  writeFile(sources, "ein Hund\nzwei\ndrei\n");
  auto progress = teacherFileProgress(sources, path);  // nothing written yet
  CHECK(progress.done == 0);
  CHECK(progress.total == 3);
  writeFile(path, "-1.0\t2\t2\tA dog.\n-2.0\t1\t1\tTwo.\n-3.0\t1");
  progress = teacherFileProgress(sources, path);
  CHECK(progress.done == 2);
  CHECK(progress.total == 3);
  CHECK(readFile(path) == "-1.0\t2\t2\tA dog.\n-2.0\t1\t1\tTwo.\n");  // the cut line cut off
  writeFile(path, "-1.0\t2\t2\tA.\n-1.0\t2\t2\tB.\n-1.0\t2\t2\tC.\n-1.0\t2\t2\tD.\n");
  CHECK(test::errorOf([&] { teacherFileProgress(sources, path); }) ==
        path + " holds 4 lines, more than the 3 of " + sources + ": it was made from other sources");
}

TEST_CASE("the filters: empty pairs always dropped, then the score per piece (</s> counted), then the length ratio") {
  DistillationFilter keepAll;
  CHECK(fateOf({-9.0, 3, 2, "A b."}, keepAll) == PairFate::kKept);
  CHECK(fateOf({0.0, 0, 0, ""}, keepAll) == PairFate::kEmpty);
  CHECK(fateOf({-1.0, 3, 0, ""}, keepAll) == PairFate::kEmpty);
  DistillationFilter filter{-1.5, 2.0};
  CHECK(fateOf({-4.4, 3, 2, "x"}, filter) == PairFate::kKept);       // -4.4 / 3 = -1.47
  CHECK(fateOf({-4.6, 3, 2, "x"}, filter) == PairFate::kLowScore);   // -4.6 / 3 = -1.53
  CHECK(fateOf({-1.0, 2, 4, "x"}, filter) == PairFate::kKept);       // 4 = 2 x 2
  CHECK(fateOf({-1.0, 2, 5, "x"}, filter) == PairFate::kLengthRatio);
  CHECK(fateOf({-1.0, 5, 2, "x"}, filter) == PairFate::kLengthRatio);
  CHECK(fateOf({-9.0, 5, 2, "x"}, filter) == PairFate::kLowScore);   // the score is judged first
  CHECK(test::errorOf([] { checkDistillationFilter({0.5, 0}); }) ==
        "min-score is a log-probability per piece: 0 (keep all) or below, not 0.5");
  CHECK(test::errorOf([] { checkDistillationFilter({0, 0.5}); }) ==
        "max-length-ratio must be 0 (keep all) or at least 1, not 0.5");
}

TEST_CASE("writeStudentPairs: the kept pairs line-aligned, the counts of what each filter dropped") {
  test::TempDir dir;
  const std::string sources = dir.path() + "/src", teacher = dir.path() + "/teacher.tsv";
  writeFile(sources, "ein Hund\n\nzwei Katzen laufen schnell\ndrei\n");
  writeFile(teacher, "-1.0\t3\t3\tA dog\n0.0000\t0\t0\t\n-9.0\t5\t4\ttwo cats run fast\n-1.0\t2\t9\tthree three three\n");
  const auto counts = writeStudentPairs(sources, teacher, {-1.5, 3.0}, dir.path() + "/s", dir.path() + "/t");
  CHECK(counts.kept == 1);
  CHECK(counts.empty == 1);
  CHECK(counts.lowScore == 1);
  CHECK(counts.lengthRatio == 1);
  CHECK(readFile(dir.path() + "/s") == "ein Hund\n");
  CHECK(readFile(dir.path() + "/t") == "A dog\n");
  writeFile(teacher, "-1.0\t3\t3\tA dog\nbroken\n");
  CHECK(test::errorOf([&] { writeStudentPairs(sources, teacher, {}, dir.path() + "/s", dir.path() + "/t"); }) ==
        teacher + ":2: not a teacher line (score, source pieces, target pieces, translation, tab-separated)");
}
