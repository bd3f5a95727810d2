#pragma once

#include <string>

namespace nmt {

// An advisory lock on a folder for one writer at a time: flock(2) on FOLDER/.lock, held while the
// object lives and dropped by the kernel when the process ends, however it ends (no stale locks).
// The file names the holder (process id and program) for the next one's message. Readers do not
// take it.
class DirectoryLock {
 public:
  // Throws InputError "FOLDER is in use by PROGRAM (process PID); wait for it to end or USE"
  // when another process holds it; `otherwise` is the advice's end ("choose another --model-dir").
  DirectoryLock(const std::string& folder, const std::string& program, const std::string& otherwise);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  static std::string fileIn(const std::string& folder) { return folder + "/.lock"; }

 private:
  int fd_ = -1;
};

}  // namespace nmt
