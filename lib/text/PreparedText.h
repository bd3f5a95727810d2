#pragma once

#include "text/ProtectedSpans.h"
#include "text/SentenceSplitter.h"
#include "text/TextOptions.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::text {

// Lines as people send them, as the units a model translates (TextOptions: sentences, spans stood in
// for, capitals in the model's case), and the units' translations back as lines.
class PreparedText {
 public:
  // whole: the lines (by index; none where shorter) that go to the model as they are, one unit each
  // (a line whose translation's beginning is given).
  PreparedText(const std::vector<std::string>& lines, const TextOptions& options, const SourceVocabulary& vocabulary,
               const std::vector<bool>& whole = {});

  const std::vector<std::string>& units() const { return units_; }  // in line order
  std::size_t lines() const { return lines_.size(); }
  // Line i's units are [firstUnit(i), firstUnit(i + 1)); a line of spaces has none.
  std::size_t firstUnit(std::size_t line) const { return firstUnit_[line]; }

  // Each unit with its line's value (one a line, as a prefix); none for none.
  std::vector<std::string> forUnits(const std::vector<std::string>& lineValues) const;
  // The lines given whole: those with a value (a prefix) that is not empty.
  static std::vector<bool> givenWhole(const std::vector<std::string>& lineValues);

  // A unit's translation as a user reads it: its spans back, and capitals where the unit had them.
  std::string restore(std::size_t unit, std::string_view translation) const;
  // Line i with its sentences replaced by the given translations (one per unit of the line, in order),
  // the text around and between them kept as it was.
  std::string join(std::size_t line, const std::vector<std::string>& translations) const;

 private:
  struct Unit {
    SentenceRange range;            // of its line
    SpanPlaceholders placeholders;  // none when not protected
    bool capitals = false;          // translated in the model's case, given back in capitals
  };
  std::vector<std::string> lines_;
  std::vector<std::string> units_;
  std::vector<Unit> unitFacts_;
  std::vector<std::size_t> firstUnit_;  // lines() + 1 entries
};

}  // namespace nmt::text
