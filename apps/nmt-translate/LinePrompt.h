#pragma once

#include <cstddef>
#include <string>

namespace nmt::app {

// nmt-translate's prompt on a terminal: line editing (arrow keys, Ctrl-A/E, ...) and a history
// (Up/Down, Ctrl-R) through libedit. The history is a plain UTF-8 text file, one entry a line,
// kept to the last kMaxEntries; a line is appended as soon as it is remembered, so a killed
// session loses nothing and two sessions at once do not overwrite each other.
// One at a time: libedit's readline interface keeps its state in globals. While one exists,
// LC_CTYPE is a UTF-8 one (the environment's, else C.UTF-8): libedit drops umlauts otherwise.
class LinePrompt {
 public:
  static constexpr std::size_t kMaxEntries = 1000;

  // historyPath empty: a history for this session only. When the file cannot be created or
  // written, the prompt works without saving and says so once on stderr.
  explicit LinePrompt(std::string historyPath);
  ~LinePrompt();
  LinePrompt(const LinePrompt&) = delete;
  LinePrompt& operator=(const LinePrompt&) = delete;

  // Writes the prompt to stdout (stderr when only that is a terminal) and reads a line, without its
  // newline. False at end of input (Ctrl-D on an empty line), the prompt's line ended.
  bool read(const std::string& prompt, std::string& line);

  // Adds the line to the history (and its file) unless it is blank or the same as the last entry.
  void remember(const std::string& line);

  // $XDG_STATE_HOME/nmt/history, else $HOME/.local/state/nmt/history; empty when neither is set.
  static std::string defaultHistoryPath();

 private:
  void loadHistory();
  void warnNotSaved(const std::string& reason);

  std::string path_;  // empty: not saving
  std::string last_;
  std::string savedLocale_;
};

}  // namespace nmt::app
