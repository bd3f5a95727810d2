#pragma once

#include "TranslationOutput.h"
#include "decode/Translator.h"

#include <cstddef>
#include <string>
#include <vector>

namespace nmt::app {

// nmt-translate's prompt on a terminal: a sentence a line, and commands that work on the last one
// (interactive-predictive translation: a translator fixes the beginning and the model redoes the rest):
//   :prefix TEXT   translate it again, beginning with TEXT
//   :alt N         the likeliest pieces at its translation's word N (from 1), each shown as the word it
//                  begins there and the translation that follows
//   :pick I        take alternative I's translation as the current one
//   :attn          show or hide attention heatmaps;  :help;  :quit (or Ctrl-D)
// maxInput: the model's most source pieces (for the truncation warning: warnAbout).
void runPrompt(Translator& translator, TranslationOutput& out, std::size_t maxInput);

// What a prompt line asks for.
struct PromptCommand {
  enum Kind { kTranslate, kPrefix, kAlternatives, kPick, kAttention, kHelp, kQuit, kWrong } kind = kTranslate;
  std::string text;      // kTranslate: the sentence; kPrefix: the prefix; kWrong: what is wrong
  std::size_t number = 0;  // kAlternatives: the word (from 1); kPick: the alternative (from 1)
};
PromptCommand parsePromptLine(const std::string& line);

// The first `words` words of a translation's text (words split at spaces), joined by single spaces.
std::string firstWords(const std::string& text, std::size_t words);

}  // namespace nmt::app
