#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace nmt {

class Translator;

// One line of a distillation's teacher file: what the teacher made of one source line.
struct TeacherLine {
  double score = 0.0;          // the translation's log-probability (its pieces and </s>)
  std::size_t sourcePieces = 0;
  std::size_t targetPieces = 0;
  std::string translation;     // "" for an empty source line
};

// "SCORE<TAB>SOURCE PIECES<TAB>TARGET PIECES<TAB>TRANSLATION"; parseTeacherLine reads it back
// (InputError naming `where` when it is not such a line).
std::string teacherLineText(const TeacherLine& line);
TeacherLine parseTeacherLine(const std::string& text, const std::string& where);

// The complete lines of a teacher file written so far; a last line cut short (the process stopped
// while writing it) is cut off the file, so that appending continues after the last whole line.
// 0 when the file does not exist.
std::size_t completeTeacherLines(const std::string& path);

// How far a distillation got, at each chunk written.
struct TeacherProgress {
  std::size_t done = 0;    // source lines translated and written, in all
  std::size_t total = 0;   // source lines
  std::size_t thisRun = 0; // of them translated by this call
  double seconds = 0.0;    // this call's time so far
};

// Where the teacher file `path` stands against its source file: the source lines, and the complete
// lines written so far (a cut last line cut off, as completeTeacherLines does); an InputError when the
// file holds more lines than the sources (it was made from others).
TeacherProgress teacherFileProgress(const std::string& sourcePath, const std::string& path);

// Translates the source file's lines after the `start.done` first (one sentence a line; each checked
// as input lines are) into the teacher file `path`, a line for a line, `chunk` lines at a time, each
// chunk appended and flushed to disk before the next: a stopped run continues where its file ends
// (teacherFileProgress), without translating again what it holds. `stop` is asked between chunks; true
// ends the call early (the file holds whole chunks). `report` hears each chunk. Returns the lines the
// file holds.
std::size_t translateIntoTeacherFile(Translator& teacher, const std::string& sourcePath, const std::string& path,
                                     TeacherProgress start, std::size_t chunk, const std::function<bool()>& stop,
                                     const std::function<void(const TeacherProgress&)>& report);

}  // namespace nmt
