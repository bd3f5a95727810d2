#pragma once

#include "decode/Translation.h"
#include "util/OutputFile.h"

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace nmt::app {

// What nmt-translate writes for each input line.
struct TranslationOutput {
  OutputFile& file;
  std::ostream& out;
  bool scored;              // "LINE ||| translation ||| log-probability" lines (n-best or --scores)
  bool aligned = false;     // " ||| 0-0 1-2" after the best translation (--alignment)
  bool showAttention = false;
  std::size_t sentences = 0, pieces = 0;  // written so far (--stats)

  // One line per input line (the translation, or its n-best as scored lines), the best one's alignment
  // appended when asked, then its attention as a text heatmap when shown.
  void write(const Translation& t, std::size_t line);
  // --alternatives: "LINE ||| piece ||| log-probability ||| translation" a line, most likely first.
  void writeAlternatives(const std::vector<Alternative>& alternatives, std::size_t line);
};

// A translated line's warnings on stderr, naming it (NAME:LINE): its input cut to the model's maximum
// (maxInput pieces), and each glossary term its translation lacks.
void warnAbout(const std::string& name, std::size_t line, const Translation& t, std::size_t maxInput);

}  // namespace nmt::app
