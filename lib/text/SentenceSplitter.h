#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace nmt::text {

// A sentence's bytes [begin, end) in a paragraph. What lies between two sentences (the spaces after
// a full stop) belongs to neither, so that joining translations keeps the paragraph's own spacing.
struct SentenceRange {
  std::size_t begin = 0, end = 0;
};

// The sentences of a paragraph, in order (none for a paragraph of spaces). A sentence ends after
// '.', '!', '?' or '…' (with the closing quotes and brackets that follow them) where spaces and then
// a capital, a digit or an opening quote follow; after '。', '！' or '？' at once. Not after what the
// language writes with a full stop inside a sentence: its abbreviations ("Nr.", "Dr.", "ca." in German;
// "Mr." in English; "Mme" in French; every list for any other language), a single letter (initials,
// "z. B.", "e.g."), in German an ordinal (before a month, after an article: "am 3. Oktober", "den 2.
// Platz") or a street before its number ("Hauptstr. 5"), or dots inside a word (URLs, "3.5"). Rules of
// the toolkit's own: ICU's sentence iterator cut 26 of 80 German paragraphs exactly right against
// these rules' 64 as first written (docs/results.md, "Text as people send it").
std::vector<SentenceRange> splitSentences(std::string_view paragraph, std::string_view language);

}  // namespace nmt::text
