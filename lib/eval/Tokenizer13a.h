#pragma once

#include <string>
#include <string_view>

namespace nmt {

// sacreBLEU's default BLEU tokenizer ("13a", after mteval-v13a.pl): drops <skipped>, unescapes
// &quot; &amp; &lt; &gt;, splits off most punctuation, and periods/commas unless between digits,
// and dashes after digits. Returns tokens joined by single spaces.
std::string tokenize13a(std::string_view line);

}  // namespace nmt
