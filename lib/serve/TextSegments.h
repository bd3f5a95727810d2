#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nmt::serve {

// Texts as clients of the LibreTranslate and DeepL APIs send them (several lines, or HTML) against the
// sentences a model translates: each text cut at line breaks, and in HTML also at tags, into runs of
// text; each run with words in it is translated as one sentence, and everything else (line breaks,
// tags, comments, <script> and <style> content, the spaces around each run) is kept as it was.
// In HTML, character references in a run are decoded before it is translated (&amp; -> &) and &, <
// and > are escaped again in its translation.
class TextSegments {
 public:
  TextSegments(const std::vector<std::string>& texts, bool html);

  // Every text's sentences, in order.
  const std::vector<std::string>& sentences() const { return sentences_; }
  // The texts again, each sentence replaced by its translation (one per sentence, in order).
  std::vector<std::string> join(const std::vector<std::string>& translations) const;
  // Characters (code points) of the sentences: what translating them counts.
  std::size_t characters() const;

 private:
  struct Part {
    std::string kept;               // as it was, when sentence < 0
    long sentence = -1;             // the sentence this part is
  };
  void addText(const std::string& text, std::vector<Part>& parts);
  void addRun(const std::string& run, std::vector<Part>& parts);

  bool html_;
  std::vector<std::vector<Part>> texts_;
  std::vector<std::string> sentences_;
};

}  // namespace nmt::serve
