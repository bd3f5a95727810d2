#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::text {

// A stretch of a sentence that must come out of translation as it went in.
struct ProtectedSpan {
  std::size_t begin = 0, end = 0;  // bytes [begin, end) of the sentence
  std::string text;
};

// Whether a model's vocabulary has a character (it reads every other one as <unk>).
using KnownCharacter = std::function<bool(char32_t)>;

// The spans a sentence must keep, in order and apart: web addresses (with or without a scheme, the
// stops and brackets that close the sentence left out), e-mail addresses, @names and #tags, paths
// and file names ("/etc/hosts", "C:\\temp", "bericht.pdf", ".env"), every word with a digit in it
// (times, prices, dates with the stop of a day and month, "24.12.", codes such as "A4" or "XJ-2025";
// numbers that a space separates are one span: "+49 30 1234567"), runs of emoji, and every word with a character the vocabulary lacks
// (`known`; null: none is lacked).
std::vector<ProtectedSpan> findProtectedSpans(std::string_view sentence, const KnownCharacter& known);

// A sentence with its spans stood in for by placeholders the model copies, and the way back.
class SpanPlaceholders {
 public:
  SpanPlaceholders() = default;
  SpanPlaceholders(std::string_view sentence, std::vector<ProtectedSpan> spans);

  const std::string& source() const { return source_; }  // what the model translates
  bool any() const { return !spans_.empty(); }
  // The translation with each placeholder replaced by its span. A span whose placeholder the model
  // left out goes in where its share of the source puts it (by words); a placeholder written twice
  // gets its span once. So every span comes out once, whatever the model wrote.
  std::string restore(std::string_view translation) const;
  const std::vector<ProtectedSpan>& spans() const { return spans_; }

  // The k-th placeholder (0-based): a number the model has learned to copy, not seen elsewhere in the
  // source (which has no digits left: every word with one is a span).
  static std::string placeholder(std::size_t k);

 private:
  std::string source_;
  std::vector<ProtectedSpan> spans_;
  std::vector<double> shares_;  // where each span's placeholder stands in the source, 0..1 by words
};

}  // namespace nmt::text
