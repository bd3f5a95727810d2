#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace nmt {

// Byte offset of the first byte that is not part of well-formed UTF-8 (overlongs, surrogates
// and code points above U+10FFFF are ill-formed), or nullopt when the text is valid.
std::optional<std::size_t> firstInvalidUtf8(std::string_view text);

// The rule every program applies to input text besides UTF-8: no control characters but tab
// (U+0000-U+001F and U+007F; a NUL would cut or shift the pieces at the SentencePiece bridge, the
// others are not text). Returns "control character U+0007 at byte N (only tab is allowed)" for the
// first, or "" when there is none.
std::string controlCharacterProblem(std::string_view text);

// The code points of UTF-8 text (its bytes that do not continue a character): what a server's
// character limits and quotas count.
std::size_t codePoints(std::string_view text);

}  // namespace nmt
