#include "decode/Glossary.h"

#include "util/InputError.h"
#include "util/TextLineReader.h"
#include "util/Utf8.h"

#include <fmt/core.h>

#include <algorithm>

namespace nmt {
namespace {

// Part of a word: an ASCII letter or digit, or any byte of a multi-byte UTF-8 character.
bool wordByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z');
}

bool occursAsWords(const std::string& sentence, const std::string& term) {
  for (std::size_t at = sentence.find(term); at != std::string::npos; at = sentence.find(term, at + 1)) {
    const bool startsWord = at == 0 || !wordByte(sentence[at - 1]) || !wordByte(term.front());
    const std::size_t end = at + term.size();
    const bool endsWord = end == sentence.size() || !wordByte(sentence[end]) || !wordByte(term.back());
    if (startsWord && endsWord) return true;
  }
  return false;
}

void checkTerm(const std::string& term, const std::string& where, const char* side) {
  if (term.find_first_not_of(" \t") == std::string::npos) throw InputError(fmt::format("{}: an empty {} term", where, side));
  if (firstInvalidUtf8(term)) throw InputError(fmt::format("{}: invalid UTF-8 in the {} term", where, side));
  if (term.find_first_of("\r\n") != std::string::npos)
    throw InputError(fmt::format("{}: a line break in the {} term", where, side));
  if (term.find('\t') != std::string::npos) throw InputError(fmt::format("{}: a tab in the {} term", where, side));
  if (const auto problem = controlCharacterProblem(term); !problem.empty())
    throw InputError(fmt::format("{}: the {} term has a {}", where, side, problem));
}

}  // namespace

Glossary::Glossary(std::vector<std::pair<std::string, std::string>> entries, const std::string& name)
    : entries_(std::move(entries)) {
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const auto where = fmt::format("{}:{}", name, i + 1);
    checkTerm(entries_[i].first, where, "source");
    checkTerm(entries_[i].second, where, "target");
  }
}

Glossary Glossary::read(const std::string& path) {
  Glossary glossary;
  const auto lines = readLines(path);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& line = lines[i];
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos || line.find('\t', tab + 1) != std::string::npos)
      throw InputError(fmt::format("{}:{}: expected 'source term<TAB>target term', one tab", path, i + 1));
    auto source = line.substr(0, tab), target = line.substr(tab + 1);
    const auto where = fmt::format("{}:{}", path, i + 1);
    checkTerm(source, where, "source");
    checkTerm(target, where, "target");
    glossary.entries_.emplace_back(std::move(source), std::move(target));
  }
  return glossary;
}

std::vector<std::string> Glossary::termsFor(const std::string& sentence) const {
  std::vector<std::string> terms;
  for (const auto& [source, target] : entries_) {
    if (terms.size() >= kMaxTermsPerSentence) break;
    if (occursAsWords(sentence, source) && std::find(terms.begin(), terms.end(), target) == terms.end())
      terms.push_back(target);
  }
  return terms;
}

}  // namespace nmt
