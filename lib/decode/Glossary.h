#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace nmt {

// Terminology: source terms and the target terms a translation must use for them. A sentence that
// holds a source term (as whole words) gets its target term as a constraint of beam search.
class Glossary {
 public:
  static constexpr std::size_t kMaxTermsPerSentence = 16;  // more found: the first ones, in the glossary's order

  // Entries as given (`name` names them in errors: "glossary.tsv", "glossary"); InputError "NAME:N: ..." for
  // an entry with an empty term, a line break or control character, or invalid UTF-8.
  Glossary(std::vector<std::pair<std::string, std::string>> entries, const std::string& name);
  // A TSV file: "source term<TAB>target term" a line; empty lines and lines starting with '#' skipped.
  // InputError naming the file and line for a line without exactly one tab, as above.
  static Glossary read(const std::string& path);

  // The target terms whose source terms occur in the sentence as whole words (not inside a longer
  // word: the bytes around are not letters or digits), in the glossary's order, each once, at most
  // kMaxTermsPerSentence.
  std::vector<std::string> termsFor(const std::string& sentence) const;
  std::size_t size() const { return entries_.size(); }
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

 private:
  Glossary() = default;  // read(): its entries checked as its lines are read

  std::vector<std::pair<std::string, std::string>> entries_;
};

}  // namespace nmt
