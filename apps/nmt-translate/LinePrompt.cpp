#include "LinePrompt.h"

#include "util/FileSystem.h"
#include "util/OutputFile.h"

#include <editline/readline.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <langinfo.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <utility>

namespace nmt::app {
namespace {

bool ctypeIsUtf8() { return std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0; }

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

// The XDG spec asks for 0700 on the state directories we create.
bool makeDirectories(const std::string& dir) {
  for (std::size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string prefix = dir.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) break;
  }
  return files::isDirectory(dir);
}

// One write(2): with O_APPEND, sessions running at once interleave whole lines. 0600: the history
// holds what the user typed. False with errno set.
bool writeFile(const std::string& path, int flags, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0600);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int error = written ? 0 : (errno != 0 ? errno : EIO);
  ::close(fd);
  errno = error;
  return written;
}

}  // namespace

LinePrompt::LinePrompt(std::string historyPath) : path_(std::move(historyPath)) {
  // libedit decodes typed bytes by LC_CTYPE, fixed when it first starts: in the "C" locale a
  // program starts in, umlauts are lost. Input is UTF-8 whatever the environment says (the
  // translator rejects anything else), so fall back to C.UTF-8. Only LC_CTYPE: numbers and
  // messages stay as they were.
  if (const char* current = std::setlocale(LC_CTYPE, nullptr)) savedLocale_ = current;
  if (!std::setlocale(LC_CTYPE, "") || !ctypeIsUtf8()) std::setlocale(LC_CTYPE, "C.UTF-8");

  // Translations redirected to a file: the prompt and the line being edited go to the terminal on
  // stderr (libedit does no editing, and shows no prompt, without a terminal to draw on).
  if (!::isatty(STDOUT_FILENO) && ::isatty(STDERR_FILENO)) rl_outstream = stderr;
  rl_readline_name = "nmt-translate";  // ~/.editrc can have "nmt-translate:bind ..." lines
  rl_inhibit_completion = 1;           // Tab completes file names otherwise; here it is just a tab
  stifle_history(static_cast<int>(kMaxEntries));  // the first libedit call: it starts with the settings above
  if (!path_.empty()) loadHistory();
}

void LinePrompt::loadHistory() {
  std::deque<std::string> entries;
  std::size_t lines = 0;
  if (std::ifstream in(path_); in) {
    for (std::string line; std::getline(in, line); ++lines) {
      if (blank(line)) continue;
      entries.push_back(std::move(line));
      if (entries.size() > kMaxEntries) entries.pop_front();
    }
  }
  for (const auto& e : entries) add_history(e.c_str());
  if (!entries.empty()) last_ = entries.back();

  const std::string parent = files::parentDirectory(path_);
  if (!parent.empty() && !makeDirectories(parent))
    return warnNotSaved(fmt::format("cannot create {}: {}", parent, std::strerror(errno)));
  if (lines > entries.size()) {  // over the limit (or blank lines): keep the last entries
    std::string text;
    for (const auto& e : entries) text += e + '\n';
    try {
      OutputFile out(path_, 0600);
      out.stream() << text;
      out.commit();
    } catch (const std::runtime_error& e) {
      return warnNotSaved(e.what());
    }
  }
  if (!writeFile(path_, O_APPEND, "")) warnNotSaved(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
}

LinePrompt::~LinePrompt() {
  clear_history();
  if (!savedLocale_.empty()) std::setlocale(LC_CTYPE, savedLocale_.c_str());
}

bool LinePrompt::read(const std::string& prompt, std::string& line) {
  std::cout.flush();  // what was written before comes before the prompt (libedit writes to the fd)
  std::fflush(stdout);
  char* got = ::readline(prompt.c_str());
  if (!got) {  // the cursor is still after the prompt
    std::fputc('\n', rl_outstream);
    std::fflush(rl_outstream);
    return false;
  }
  line.assign(got);
  std::free(got);
  return true;
}

void LinePrompt::remember(const std::string& line) {
  if (blank(line) || line == last_ || line.find('\n') != std::string::npos) return;
  last_ = line;
  add_history(line.c_str());
  if (path_.empty()) return;
  if (!writeFile(path_, O_APPEND, line + '\n'))
    warnNotSaved(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
}

std::string LinePrompt::defaultHistoryPath() {
  // The XDG base directory spec: a relative XDG_STATE_HOME is invalid and ignored.
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && state[0] == '/')
    return std::string(state) + "/nmt/history";
  if (const char* home = std::getenv("HOME"); home && home[0] != '\0')
    return std::string(home) + "/.local/state/nmt/history";
  return {};
}

void LinePrompt::warnNotSaved(const std::string& reason) {
  fmt::print(stderr, "nmt-translate: warning: the prompt's history is not saved: {}\n", reason);
  path_.clear();
}

}  // namespace nmt::app
