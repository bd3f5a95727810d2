#include "distill/TeacherTranslations.h"

#include "decode/Translator.h"
#include "util/FileSystem.h"
#include "util/InputError.h"
#include "util/OutputFile.h"
#include "util/Stopwatch.h"
#include "util/TextLineReader.h"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>

namespace nmt {
namespace {

// Appends `text` to the file and flushes it to disk: a WriteError naming the file when that fails
// (a full disk), the file then cut back to where it was.
void appendDurably(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw WriteError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  const off_t before = ::lseek(fd, 0, SEEK_END);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : ENOSPC;
      if (before >= 0 && ::ftruncate(fd, before) != 0) {}  // best effort: the next run cuts a partial line anyway
      ::close(fd);
      throw WriteError(fmt::format("cannot write {}: {}", path, std::strerror(error)));
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    throw WriteError(fmt::format("cannot write {}: {}", path, std::strerror(error)));
  }
  ::close(fd);
}

std::size_t countPieces(const Translation& t) { return t.empty() ? 0 : t.best().ids.size(); }

}  // namespace

std::string teacherLineText(const TeacherLine& line) {
  return fmt::format("{:.4f}\t{}\t{}\t{}", line.score, line.sourcePieces, line.targetPieces, line.translation);
}

TeacherLine parseTeacherLine(const std::string& text, const std::string& where) {
  TeacherLine line;
  std::size_t fields[3];
  std::size_t start = 0;
  for (std::size_t& end : fields) {
    end = text.find('\t', start);
    if (end == std::string::npos)
      throw InputError(fmt::format("{}: not a teacher line (score, source pieces, target pieces, translation, "
                                   "tab-separated)",
                                   where));
    start = end + 1;
  }
  try {
    std::size_t used = 0;
    line.score = std::stod(text.substr(0, fields[0]), &used);
    if (used != fields[0]) throw std::invalid_argument("score");
    line.sourcePieces = std::stoul(text.substr(fields[0] + 1, fields[1] - fields[0] - 1));
    line.targetPieces = std::stoul(text.substr(fields[1] + 1, fields[2] - fields[1] - 1));
  } catch (const std::logic_error&) {
    throw InputError(fmt::format("{}: not a teacher line (its score and piece counts are not numbers)", where));
  }
  line.translation = text.substr(fields[2] + 1);
  return line;
}

std::size_t completeTeacherLines(const std::string& path) {
  if (!files::exists(path)) return 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::size_t lines = 0;
  std::streamoff lastEnd = 0, position = 0;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    const auto n = in.gcount();
    for (std::streamsize i = 0; i < n; ++i)
      if (buffer[i] == '\n') {
        ++lines;
        lastEnd = position + i + 1;
      }
    position += n;
  }
  if (position != lastEnd && ::truncate(path.c_str(), lastEnd) != 0)
    throw WriteError(fmt::format("cannot cut the unfinished last line of {}: {}", path, std::strerror(errno)));
  return lines;
}

TeacherProgress teacherFileProgress(const std::string& sourcePath, const std::string& path) {
  TeacherProgress progress;
  progress.done = completeTeacherLines(path);
  {
    TextLineReader count(sourcePath);
    std::string line;
    while (count.next(line)) ++progress.total;
  }
  if (progress.done > progress.total)
    throw InputError(fmt::format("{} holds {} lines, more than the {} of {}: it was made from other sources", path,
                                 progress.done, progress.total, sourcePath));
  return progress;
}

std::size_t translateIntoTeacherFile(Translator& teacher, const std::string& sourcePath, const std::string& path,
                                     TeacherProgress start, std::size_t chunk, const std::function<bool()>& stop,
                                     const std::function<void(const TeacherProgress&)>& report) {
  TeacherProgress progress = start;
  progress.thisRun = 0;
  progress.seconds = 0.0;
  TextLineReader reader(sourcePath);
  std::string line;
  for (std::size_t skipped = 0; skipped < progress.done && reader.next(line); ++skipped) {}
  const Stopwatch clock;
  std::vector<std::string> sources;
  while (progress.done < progress.total) {
    if (stop && stop()) break;
    sources.clear();
    while (sources.size() < std::max<std::size_t>(1, chunk) && reader.next(line)) sources.push_back(line);
    if (sources.empty()) break;
    const auto translations = teacher.translate(sources);
    std::string text;
    for (const auto& t : translations) {
      TeacherLine out;
      if (!t.empty()) {
        out.score = t.best().score;
        out.translation = t.best().text;
      }
      out.sourcePieces = t.sourceIds.size();
      out.targetPieces = countPieces(t);
      text += teacherLineText(out);
      text += '\n';
    }
    appendDurably(path, text);
    progress.done += sources.size();
    progress.thisRun += sources.size();
    progress.seconds = clock.seconds();
    if (report) report(progress);
  }
  return progress.done;
}

}  // namespace nmt
