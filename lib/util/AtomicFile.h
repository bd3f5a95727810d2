#pragma once

#include "util/OutputFile.h"

#include <string>

namespace nmt {

// Replaces `path` with `text` so that a reader (or a crash at any moment) sees either the old
// file or the complete new one (an OutputFile: temporary file, flushed, renamed); WriteError
// naming `path` when a write fails.
void writeTextFileAtomically(const std::string& path, const std::string& text);

// The same for a copy of the file `from`; throws naming the file that could not be read or written.
void copyFileAtomically(const std::string& from, const std::string& to);

// The same for a finished file `from` that another library wrote beside `to` (SentencePiece's
// models), which is then gone: renamed over `to` where `to` is replaced (no second copy on a full
// disk), copied where it is written in place or on another file system.
void moveFileAtomically(const std::string& from, const std::string& to);

}  // namespace nmt
