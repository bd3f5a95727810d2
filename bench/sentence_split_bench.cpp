// nmt-bench-split: the toolkit's sentence splitter against ICU's sentence BreakIterator (plain, and with
// the locale's abbreviation suppressions, "@ss=standard") on paragraphs whose sentences are known.
//   nmt-bench-split [FILE] [--language de]
// FILE: one sentence a line, a paragraph ending with a line "===" (bench/data/real-text/paragraphs.de.txt).
// Prints, for each splitter, the paragraphs cut exactly right and the boundaries found, missed and made up.
#include "text/SentenceSplitter.h"

#include <unicode/brkiter.h>
#include <unicode/unistr.h>

#include <fmt/core.h>

#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {

struct Paragraph {
  std::string text;
  std::set<std::size_t> ends;  // byte offsets where a sentence ends (the last one's included)
};

std::vector<Paragraph> readParagraphs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  std::vector<Paragraph> out;
  Paragraph p;
  for (std::string line; std::getline(in, line);) {
    if (line == "===") {
      out.push_back(std::move(p));
      p = {};
      continue;
    }
    if (!p.text.empty()) p.text += ' ';
    p.text += line;
    p.ends.insert(p.text.size());
  }
  return out;
}

// Where each sentence ends, trailing spaces left out.
using Splitter = std::function<std::set<std::size_t>(const std::string&)>;

std::set<std::size_t> icuEnds(icu::BreakIterator& it, const std::string& text) {
  // ICU works in UTF-16: each boundary mapped back to a byte offset of the UTF-8 text
  const icu::UnicodeString u = icu::UnicodeString::fromUTF8(text);
  it.setText(u);
  std::set<std::size_t> ends;
  for (int32_t end = it.next(); end != icu::BreakIterator::DONE; end = it.next()) {
    std::string prefix;
    u.tempSubStringBetween(0, end).toUTF8String(prefix);
    while (!prefix.empty() && prefix.back() == ' ') prefix.pop_back();
    ends.insert(prefix.size());
  }
  return ends;
}

void report(const std::string& name, const std::vector<Paragraph>& paragraphs, const Splitter& split) {
  std::size_t exact = 0, found = 0, missed = 0, madeUp = 0;
  for (const auto& p : paragraphs) {
    const auto got = split(p.text);
    exact += got == p.ends ? 1 : 0;
    for (const auto e : p.ends) (got.count(e) ? found : missed) += 1;
    for (const auto e : got) madeUp += p.ends.count(e) ? 0 : 1;
  }
  fmt::print("{:<34} {:>3} of {} paragraphs exact; boundaries {} found, {} missed, {} made up\n", name, exact,
             paragraphs.size(), found, missed, madeUp);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string path = "bench/data/real-text/paragraphs.de.txt", language = "de";
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--language" && i + 1 < argc) language = argv[++i];
      else path = a;
    }
    const auto paragraphs = readParagraphs(path);
    report("nmt (text/SentenceSplitter)", paragraphs, [&](const std::string& text) {
      std::set<std::size_t> ends;
      for (const auto& r : nmt::text::splitSentences(text, language)) ends.insert(r.end);
      return ends;
    });
    for (const std::string suffix : {"", "@ss=standard"}) {
      UErrorCode status = U_ZERO_ERROR;
      std::unique_ptr<icu::BreakIterator> it(
          icu::BreakIterator::createSentenceInstance(icu::Locale((language + suffix).c_str()), status));
      if (U_FAILURE(status)) throw std::runtime_error("ICU's sentence iterator: " + std::string(u_errorName(status)));
      report("ICU " + std::string(U_ICU_VERSION) + (suffix.empty() ? " BreakIterator" : " BreakIterator " + suffix),
             paragraphs, [&](const std::string& text) { return icuEnds(*it, text); });
    }
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "nmt-bench-split: {}\n", e.what());
    return 1;
  }
}
