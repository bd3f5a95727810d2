#pragma once

#include "util/OutputFile.h"

#include <functional>
#include <string>

namespace nmt {

// Replaces `path` so that a reader (or a crash at any moment) sees either the old file or the
// complete new one, for writers that need a path of their own: `write` fills `path + ".tmp"`,
// which is flushed to disk and renamed over `path`, then the directory entry is flushed too.
// When `write` throws, the temporary file is removed.
void replaceFileAtomically(const std::string& path, const std::function<void(const std::string& tmpPath)>& write);

// The same for text, through an OutputFile: WriteError naming `path` when a write fails.
void writeTextFileAtomically(const std::string& path, const std::string& text);

// The same for a copy of the file `from`; throws naming the file that could not be read or written.
void copyFileAtomically(const std::string& from, const std::string& to);

}  // namespace nmt
