// Translation and Hypothesis as Python values: read-only fields, equality, pickling (for
// multiprocessing and joblib), to_dict() (for JSON and pandas), reprs, and the attention heatmap.
#include "Bindings.h"

#include "attention/Heatmap.h"
#include "attention/HeatmapOf.h"
#include "decode/Translation.h"
#include "decode/WordAlignment.h"

#include <ATen/ATen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>

namespace py = pybind11;

namespace nmt::python {
namespace {

py::object attentionArray(const Translation& t) {
  if (!t.attention.defined()) return py::none();
  const auto weights = t.attention.to(at::kCPU, at::kFloat).contiguous();
  py::array_t<float> out({weights.size(0), weights.size(1)});
  std::memcpy(out.mutable_data(), weights.data_ptr<float>(), sizeof(float) * static_cast<std::size_t>(weights.numel()));
  return std::move(out);
}

// A float32 [rows, columns] array (or None) as a Translation's attention.
at::Tensor attentionFrom(const py::object& array) {
  if (array.is_none()) return {};
  const auto a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(array);
  if (!a || a.ndim() != 2) throw py::value_error("a Translation's attention is a 2-d float32 array");
  return at::from_blob(const_cast<float*>(a.data()), {a.shape(0), a.shape(1)}, at::kFloat).clone();
}

py::object svgOf(const Translation& t) {
  if (!t.attention.defined() || t.empty()) return py::none();
  return py::str(svgHeatmap(heatmapOf(t.attention, t.best().pieces, t.sourcePieces), t.best().text));
}

bool sameScore(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool same(const TranslatedHypothesis& a, const TranslatedHypothesis& b) {
  return a.text == b.text && a.pieces == b.pieces && a.ids == b.ids && sameScore(a.score, b.score) &&
         a.finished == b.finished && sameScore(a.normalizedScore, b.normalizedScore) && a.prefixPieces == b.prefixPieces;
}

bool same(const Translation& a, const Translation& b) {
  if (a.sourceIds != b.sourceIds || a.sourcePieces != b.sourcePieces || a.inputPieces != b.inputPieces ||
      a.truncated != b.truncated || a.hypotheses.size() != b.hypotheses.size() ||
      a.attention.defined() != b.attention.defined() || a.alignment != b.alignment || a.missingTerms != b.missingTerms)
    return false;
  for (std::size_t i = 0; i < a.hypotheses.size(); ++i)
    if (!same(a.hypotheses[i], b.hypotheses[i])) return false;
  return !a.attention.defined() || at::equal(a.attention.to(at::kFloat), b.attention.to(at::kFloat));
}

py::tuple stateOf(const TranslatedHypothesis& h) {
  return py::make_tuple(h.text, h.pieces, h.ids, h.score, h.finished, h.normalizedScore, h.prefixPieces);
}

// (6 items: pickled before prefixes)
TranslatedHypothesis hypothesisFrom(const py::tuple& state) {
  if (state.size() != 6 && state.size() != 7) throw py::value_error("not a pickled Hypothesis");
  TranslatedHypothesis h;
  h.text = state[0].cast<std::string>();
  h.pieces = state[1].cast<std::vector<std::string>>();
  h.ids = state[2].cast<std::vector<int>>();
  h.score = state[3].cast<double>();
  h.finished = state[4].cast<bool>();
  h.normalizedScore = state[5].cast<double>();
  if (state.size() == 7) h.prefixPieces = state[6].cast<std::size_t>();
  return h;
}

py::tuple stateOf(const Translation& t) {
  py::list hypotheses;
  for (const auto& h : t.hypotheses) hypotheses.append(stateOf(h));
  return py::make_tuple(t.sourceIds, t.sourcePieces, t.inputPieces, t.truncated, hypotheses, attentionArray(t),
                        t.alignment, t.missingTerms);
}

// (6 items: pickled before alignments and glossaries)
Translation translationFrom(const py::tuple& state) {
  if (state.size() != 6 && state.size() != 8) throw py::value_error("not a pickled Translation");
  Translation t;
  t.sourceIds = state[0].cast<std::vector<int>>();
  t.sourcePieces = state[1].cast<std::vector<std::string>>();
  t.inputPieces = state[2].cast<std::size_t>();
  t.truncated = state[3].cast<bool>();
  for (const auto& h : state[4].cast<py::list>()) t.hypotheses.push_back(hypothesisFrom(h.cast<py::tuple>()));
  t.attention = attentionFrom(state[5]);
  if (state.size() == 8) {
    t.alignment = state[6].cast<WordAlignment>();
    t.missingTerms = state[7].cast<std::vector<std::string>>();
  }
  return t;
}

py::dict dictOf(const TranslatedHypothesis& h) {
  py::dict d;
  d["text"] = h.text;
  d["pieces"] = h.pieces;
  d["score"] = h.score;
  d["normalized_score"] = h.normalizedScore;
  d["finished"] = h.finished;
  d["prefix_pieces"] = h.prefixPieces;
  return d;
}

py::dict dictOf(const Translation& t) {
  py::dict d;
  d["text"] = t.empty() ? std::string() : t.best().text;
  d["score"] = t.empty() ? 0.0 : t.best().score;
  d["finished"] = t.empty() || t.best().finished;
  d["source_pieces"] = t.sourcePieces;
  d["target_pieces"] = t.empty() ? std::vector<std::string>() : t.best().pieces;
  d["truncated"] = t.truncated;
  py::list nbest;
  for (const auto& h : t.hypotheses) nbest.append(dictOf(h));
  d["nbest"] = nbest;
  const auto attention = attentionArray(t);
  d["attention"] = attention.is_none() ? attention : attention.attr("tolist")();
  d["alignment"] = t.alignment;
  d["missing_terms"] = t.missingTerms;
  return d;
}

py::dict dictOf(const Alternative& a) {
  py::dict d;
  d["piece"] = a.piece;
  d["id"] = a.id;
  d["log_probability"] = a.logProbability;
  d["translation"] = dictOf(a.completion);
  return d;
}

}  // namespace

void bindHypothesis(py::module_& m) {
  py::class_<TranslatedHypothesis>(m, "Hypothesis", "One hypothesis of a translation.")
      .def_readonly("text", &TranslatedHypothesis::text)
      .def_readonly("pieces", &TranslatedHypothesis::pieces, "target pieces, '</s>' last when it was produced")
      .def_readonly("score", &TranslatedHypothesis::score, "log-probability, </s> included when it was produced")
      .def_readonly("finished", &TranslatedHypothesis::finished, "ended with </s> (False: cut at the length limit)")
      .def_readonly("normalized_score", &TranslatedHypothesis::normalizedScore,
                    "what the n-best list is ordered by: beam search's score / ((5 + length) / 6) ** length_penalty; "
                    "the score itself where nothing ranked (greedy search, forced decoding)")
      .def_readonly("prefix_pieces", &TranslatedHypothesis::prefixPieces,
                    "how many of the first pieces were the given prefix (0: none given)")
      .def("to_dict", [](const TranslatedHypothesis& h) { return dictOf(h); },
           "text, pieces, score, normalized_score, finished and prefix_pieces as a dict (for JSON)")
      .def("__eq__", [](const TranslatedHypothesis& a, const TranslatedHypothesis& b) { return same(a, b); }, py::arg("other"))
      .def(py::pickle([](const TranslatedHypothesis& h) { return stateOf(h); },
                      [](const py::tuple& state) { return hypothesisFrom(state); }))
      .def("__repr__", [](const TranslatedHypothesis& h) {
        return "Hypothesis(" + py::repr(py::str(h.text)).cast<std::string>() + ", score=" + std::to_string(h.score) + ")";
      });
}

void bindTranslation(py::module_& m) {
  py::class_<Translation>(m, "Translation",
                          "One sentence's translation: its best hypothesis, the n-best list and the attention.")
      .def_property_readonly("text", [](const Translation& t) { return t.empty() ? std::string() : t.best().text; })
      .def_property_readonly("score", [](const Translation& t) { return t.empty() ? 0.0 : t.best().score; },
                             "the best hypothesis' log-probability")
      .def_property_readonly("finished", [](const Translation& t) { return t.empty() || t.best().finished; })
      .def_property_readonly("target_pieces",
                             [](const Translation& t) { return t.empty() ? std::vector<std::string>() : t.best().pieces; })
      .def_readonly("source_pieces", &Translation::sourcePieces, "the source's pieces as read, then '</s>'")
      .def_readonly("truncated", &Translation::truncated, "the source had more pieces than the model's maximum")
      .def_readonly("nbest", &Translation::hypotheses, "the hypotheses, best first (none for an empty input)")
      .def_property_readonly("attention", &attentionArray,
                             "the best hypothesis' attention, a float32 array [target pieces, source pieces] "
                             "(rows sum to 1); None unless asked for")
      .def_readonly("missing_terms", &Translation::missingTerms,
                    "glossary target terms the best hypothesis lacks: the length limit came first (empty without a "
                    "glossary)")
      .def_readonly("alignment", &Translation::alignment,
                    "the best hypothesis' word alignment, (source word, target word) pairs from 0, sorted; empty "
                    "unless asked for (alignment=True)")
      .def("to_dict", [](const Translation& t) { return dictOf(t); },
           "text, score, finished, source_pieces, target_pieces, truncated, nbest (their dicts), attention "
           "(a list of rows, or None), alignment and missing_terms as a dict (for JSON)")
      .def("__eq__", [](const Translation& a, const Translation& b) { return same(a, b); }, py::arg("other"))
      .def(py::pickle([](const Translation& t) { return stateOf(t); },
                      [](const py::tuple& state) { return translationFrom(state); }))
      .def("_repr_svg_", &svgOf, "the attention heatmap as nmt-attention draws it (Jupyter shows it)")
      .def("__repr__", [](const Translation& t) {
        const std::string text = t.empty() ? std::string() : t.best().text;
        return "Translation(" + py::repr(py::str(text)).cast<std::string>() +
               ", score=" + std::to_string(t.empty() ? 0.0 : t.best().score) + ")";
      });
}

void bindAlternative(py::module_& m) {
  py::class_<Alternative>(m, "Alternative",
                          "One choice at a position of a translation (Translator.alternatives): a piece, its "
                          "log-probability there, and the translation that follows from choosing it.")
      .def_readonly("piece", &Alternative::piece, "the piece ('</s>': the translation ends there)")
      .def_readonly("id", &Alternative::id, "the piece's id")
      .def_readonly("log_probability", &Alternative::logProbability, "the piece's log-probability after the prefix")
      .def_readonly("translation", &Alternative::completion,
                    "the prefix, the piece and what the search finds after them (prefix_pieces counts the prefix and "
                    "the piece; score: the whole translation's log-probability)")
      .def("to_dict", [](const Alternative& a) { return dictOf(a); },
           "piece, id, log_probability and translation (its dict) as a dict (for JSON)")
      .def("__repr__", [](const Alternative& a) {
        return "Alternative(" + py::repr(py::str(a.piece)).cast<std::string>() + ", " +
               py::repr(py::str(a.completion.text)).cast<std::string>() +
               ", log_probability=" + std::to_string(a.logProbability) + ")";
      });
}

}  // namespace nmt::python
