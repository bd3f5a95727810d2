#include "TranslationOutput.h"

#include "attention/Heatmap.h"
#include "attention/HeatmapOf.h"
#include "decode/WordAlignment.h"

#include <fmt/core.h>

namespace nmt::app {

void TranslationOutput::write(const Translation& t, std::size_t line) {
  ++sentences;
  if (!t.empty()) pieces += t.best().ids.size();
  const std::string alignment = aligned ? " ||| " + pharaoh(t.alignment) : "";
  if (!scored) {
    out << (t.empty() ? "" : t.best().text) << alignment << '\n';
  } else if (t.empty()) {
    out << line << " |||  ||| 0.0000" << alignment << '\n';
  } else {
    for (std::size_t k = 0; k < t.hypotheses.size(); ++k)
      out << fmt::format("{} ||| {} ||| {:.4f}{}\n", line, t.hypotheses[k].text, t.hypotheses[k].score,
                         k == 0 ? alignment : "");
  }
  if (showAttention && t.attention.defined()) out << textHeatmap(heatmapOf(t.attention, t.best().pieces, t.sourcePieces));
}

void TranslationOutput::writeAlternatives(const std::vector<Alternative>& alternatives, std::size_t line) {
  ++sentences;
  for (const auto& a : alternatives) {
    pieces += a.completion.ids.size();
    out << fmt::format("{} ||| {} ||| {:.4f} ||| {}\n", line, a.piece, a.logProbability, a.completion.text);
  }
}

void warnAbout(const std::string& name, std::size_t line, const Translation& t, std::size_t maxInput) {
  if (t.truncated)
    fmt::print(stderr, "nmt-translate: warning: {}:{}: {} pieces, truncated to the model's maximum of {}\n", name,
               line, t.inputPieces, maxInput);
  for (const auto& term : t.missingTerms)
    fmt::print(stderr, "nmt-translate: warning: {}:{}: the glossary's '{}' is not in the translation (the length limit "
               "came first)\n", name, line, term);
}

}  // namespace nmt::app
