#include "PromptSession.h"

#include "LinePrompt.h"
#include "tokenization/SpecialIds.h"
#include "util/InputError.h"
#include "util/TextLineReader.h"

#include <fmt/core.h>

#include <charconv>
#include <sstream>

namespace nmt::app {
namespace {

constexpr std::size_t kPromptAlternatives = 5;

const char* kBanner =
    "Type a sentence and press Enter. :help lists the commands (:prefix, :alt, :pick, :attn), :quit leaves.\n";
const char* kHelp =
    "Type a sentence and press Enter. Then:\n"
    "  :prefix TEXT  translate it again, beginning with TEXT\n"
    "  :alt N        the likeliest words at its translation's word N, each with what follows\n"
    "  :pick I       take alternative I\n"
    "  :attn         show or hide attention;  :help;  :quit\n";

bool wholeNumber(const std::string& text, std::size_t& n) {
  const auto* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, n);
  return error == std::errc() && at == end && n > 0;
}

// What choosing an alternative at word `word` (from 0) puts there, as a reader sees it: its
// translation's word there ("(end)" where the translation ends before it).
std::string wordChosen(const Alternative& a, std::size_t word) {
  const auto words = firstWords(a.completion.text, word + 1);
  const auto before = firstWords(a.completion.text, word);
  return a.id == SpecialIds::kEos || words.size() == before.size() ? "(end)" : words.substr(before.empty() ? 0 : before.size() + 1);
}

// The prompt's state: the last sentence, its current translation, the last alternatives.
class Session {
 public:
  Session(Translator& translator, TranslationOutput& out, std::size_t maxInput)
      : translator_(translator), out_(out), maxInput_(maxInput) {}

  void run();

 private:
  void translate(const std::string& sentence, const std::string& prefix, std::size_t n);
  void alternatives(std::size_t word);
  void pick(std::size_t number);
  bool haveSentence() const;

  Translator& translator_;
  TranslationOutput& out_;
  std::size_t maxInput_;
  std::string sentence_, translation_;
  std::vector<Alternative> alternatives_;
};

bool Session::haveSentence() const {
  if (!sentence_.empty()) return true;
  fmt::print(stderr, "nmt-translate: type a sentence first\n");
  return false;
}

void Session::translate(const std::string& sentence, const std::string& prefix, std::size_t n) {
  std::string checked = sentence, checkedPrefix = prefix;
  checkInputLine(checked, "<stdin>", n);
  checkInputLine(checkedPrefix, "<stdin>", n);
  const auto t = prefix.empty() ? translator_.translate({sentence}) : translator_.translate({sentence}, {prefix}, "prefix");
  warnAbout("<stdin>", n, t[0], maxInput_);
  out_.write(t[0], n);
  sentence_ = sentence;
  translation_ = t[0].empty() ? "" : t[0].best().text;
  alternatives_.clear();
}

void Session::alternatives(std::size_t word) {
  const std::string prefix = firstWords(translation_, word - 1);
  alternatives_ = translator_.alternatives(sentence_, prefix, kPromptAlternatives);
  for (std::size_t i = 0; i < alternatives_.size(); ++i)
    out_.out << fmt::format("{}. {} ({:.2f}): {}\n", i + 1, wordChosen(alternatives_[i], word - 1),
                            alternatives_[i].logProbability, alternatives_[i].completion.text);
}

void Session::pick(std::size_t number) {
  if (number > alternatives_.size()) {
    fmt::print(stderr, "nmt-translate: {}\n",
               alternatives_.empty() ? "no alternatives yet: ask with :alt N"
                                     : fmt::format("pick 1 to {}", alternatives_.size()));
    return;
  }
  translation_ = alternatives_[number - 1].completion.text;  // the list stays: another may be picked
  out_.out << translation_ << '\n';
}

void Session::run() {
  LinePrompt prompt(LinePrompt::defaultHistoryPath());
  fmt::print(stderr, "{}", kBanner);
  std::string line;
  for (std::size_t n = 1;; ++n) {
    out_.file.flush();  // the last answer before the next prompt, also when it goes to a file (--output)
    if (!prompt.read("> ", line)) break;
    const auto command = parsePromptLine(line);
    if (command.kind != PromptCommand::kQuit) prompt.remember(line);
    try {
      switch (command.kind) {
        case PromptCommand::kQuit:
          return;
        case PromptCommand::kHelp:
          fmt::print(stderr, "{}", kHelp);
          break;
        case PromptCommand::kWrong:
          fmt::print(stderr, "nmt-translate: {}\n", command.text);
          break;
        case PromptCommand::kAttention:
          out_.showAttention = !out_.showAttention;
          out_.out << "attention " << (out_.showAttention ? "on" : "off") << '\n';
          break;
        case PromptCommand::kTranslate:
          translate(command.text, "", n);
          break;
        case PromptCommand::kPrefix:
          if (haveSentence()) translate(sentence_, command.text, n);
          break;
        case PromptCommand::kAlternatives:
          if (haveSentence()) alternatives(command.number);
          break;
        case PromptCommand::kPick:
          pick(command.number);
          break;
      }
    } catch (const InputError& e) {
      fmt::print(stderr, "nmt-translate: {}\n", e.what());
    }
  }
}

}  // namespace

PromptCommand parsePromptLine(const std::string& line) {
  PromptCommand c;
  if (line.empty() || line[0] != ':') {
    c.text = line;
    return c;
  }
  const auto space = line.find(' ');
  const std::string name = line.substr(0, space);
  std::string rest;  // after the name and its spaces
  if (const auto start = line.find_first_not_of(' ', space); space != std::string::npos && start != std::string::npos)
    rest = line.substr(start);
  if (name == ":quit" || name == ":q") c.kind = PromptCommand::kQuit;
  else if (name == ":help") c.kind = PromptCommand::kHelp;
  else if (name == ":attn") c.kind = PromptCommand::kAttention;
  else if (name == ":prefix") {
    c.kind = rest.empty() ? PromptCommand::kWrong : PromptCommand::kPrefix;
    c.text = rest.empty() ? ":prefix takes the translation's beginning, e.g. :prefix A man" : rest;
  } else if (name == ":alt" || name == ":pick") {
    const bool alt = name == ":alt";
    c.kind = alt ? PromptCommand::kAlternatives : PromptCommand::kPick;
    if (!wholeNumber(rest, c.number)) {
      c.kind = PromptCommand::kWrong;
      c.text = alt ? ":alt takes a word's place in the translation, from 1, e.g. :alt 3"
                   : ":pick takes an alternative's number, e.g. :pick 2";
    }
  } else {
    c.kind = PromptCommand::kWrong;
    c.text = fmt::format("no command {}: :help lists them", name);
  }
  return c;
}

std::string firstWords(const std::string& text, std::size_t words) {
  std::istringstream in(text);
  std::string word, out;
  for (std::size_t i = 0; i < words && in >> word; ++i) out += (out.empty() ? "" : " ") + word;
  return out;
}

void runPrompt(Translator& translator, TranslationOutput& out, std::size_t maxInput) {
  Session(translator, out, maxInput).run();
}

}  // namespace nmt::app
