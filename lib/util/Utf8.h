#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace nmt {

// Byte offset of the first byte that is not part of well-formed UTF-8 (overlongs, surrogates
// and code points above U+10FFFF are ill-formed), or nullopt when the text is valid.
std::optional<std::size_t> firstInvalidUtf8(std::string_view text);

}  // namespace nmt
