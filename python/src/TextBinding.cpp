#include "Arguments.h"
#include "Bindings.h"

#include "eval/Bleu.h"
#include "eval/Chrf.h"
#include "tokenization/BpeModel.h"
#include "tokenization/BpeTrainer.h"
#include "util/FileSystem.h"
#include "util/InputError.h"

#include <fmt/core.h>
#include <pybind11/stl.h>

#include <memory>

namespace py = pybind11;

namespace nmt::python {
namespace {

// sacreBLEU's shapes: one reference per hypothesis (a list of strings), or several streams (a list
// of lists, each as long as the hypotheses).
std::vector<std::vector<std::string>> referenceStreams(const py::object& references) {
  if (py::isinstance<py::str>(references) || !py::hasattr(references, "__iter__"))
    throw py::type_error(fmt::format("references must be a list of str or of lists of str, not {}",
                                     Py_TYPE(references.ptr())->tp_name));
  const py::list list(references);
  if (list.size() == 0 || py::isinstance<py::str>(list[0]) || !py::hasattr(list[0], "__iter__"))
    return {textsArgument(list, "references")};  // one reference a hypothesis
  std::vector<std::vector<std::string>> streams;
  for (std::size_t k = 0; k < list.size(); ++k)
    streams.push_back(textsArgument(list[k], fmt::format("references[{}]", k).c_str()));
  return streams;
}

// nmt-score's JSON fields (what `nmt-score --json` prints, unrounded).
py::dict dictOf(const BleuScore& s) {
  py::dict d;
  d["name"] = "BLEU";
  d["score"] = s.score;
  d["precisions"] = std::vector<double>(s.precisions.begin(), s.precisions.end());
  d["bp"] = s.brevityPenalty;
  d["ratio"] = s.ratio;
  d["hyp_len"] = s.hypLength;
  d["ref_len"] = s.refLength;
  d["tokenize"] = "13a";
  d["smooth"] = "exp";
  d["lowercase"] = s.lowercase;
  return d;
}

py::dict dictOf(const ChrfScore& s) {
  py::dict d;
  d["name"] = fmt::format("chrF{}", s.beta);
  d["score"] = s.score;
  d["char_order"] = s.charOrder;
  d["beta"] = s.beta;
  d["lowercase"] = s.lowercase;
  return d;
}

py::tuple stateOf(const BleuScore& s) {
  return py::make_tuple(s.score, std::vector<double>(s.precisions.begin(), s.precisions.end()), s.brevityPenalty,
                        s.ratio, s.hypLength, s.refLength, s.lowercase);
}

BleuScore bleuFrom(const py::tuple& state) {
  if (state.size() != 7) throw py::value_error("not a pickled BleuScore");
  BleuScore s;
  s.score = state[0].cast<double>();
  const auto precisions = state[1].cast<std::vector<double>>();
  if (precisions.size() != s.precisions.size()) throw py::value_error("not a pickled BleuScore");
  std::copy(precisions.begin(), precisions.end(), s.precisions.begin());
  s.brevityPenalty = state[2].cast<double>();
  s.ratio = state[3].cast<double>();
  s.hypLength = state[4].cast<std::size_t>();
  s.refLength = state[5].cast<std::size_t>();
  s.lowercase = state[6].cast<bool>();
  return s;
}

py::tuple stateOf(const ChrfScore& s) { return py::make_tuple(s.score, s.beta, s.charOrder, s.lowercase); }

ChrfScore chrfFrom(const py::tuple& state) {
  if (state.size() != 4) throw py::value_error("not a pickled ChrfScore");
  return {state[0].cast<double>(), state[1].cast<int>(), state[2].cast<int>(), state[3].cast<bool>()};
}

// A corpus score (corpusBleu, corpusChrf: they check the streams' lengths) of hypotheses against
// references in either of sacreBLEU's shapes, the GIL released.
template <typename Options, typename Score>
Score corpusScore(Score (*score)(const std::vector<std::string>&, const std::vector<std::vector<std::string>>&,
                                 const Options&),
                  const std::vector<std::string>& hypotheses, const py::object& references, bool lowercase) {
  const auto streams = referenceStreams(references);
  Options options;
  options.lowercase = lowercase;
  py::gil_scoped_release release;
  return score(hypotheses, streams, options);
}

}  // namespace

void bindText(py::module_& m) {
  py::class_<BleuScore>(m, "BleuScore", "Corpus BLEU as sacreBLEU 2.x computes it by default (13a, exp smoothing).")
      .def_readonly("score", &BleuScore::score)
      .def_readonly("precisions", &BleuScore::precisions, "n-gram precisions 1-4, 0..100")
      .def_readonly("bp", &BleuScore::brevityPenalty, "brevity penalty")
      .def_readonly("ratio", &BleuScore::ratio, "hypothesis length / reference length")
      .def_readonly("hyp_len", &BleuScore::hypLength)
      .def_readonly("ref_len", &BleuScore::refLength)
      .def_readonly("lowercase", &BleuScore::lowercase, "scored lowercased")
      .def_property_readonly("tokenize", [](const BleuScore&) { return "13a"; }, "sacreBLEU's tokenizer: 13a")
      .def_property_readonly("smooth", [](const BleuScore&) { return "exp"; }, "sacreBLEU's smoothing: exp")
      .def("to_dict", [](const BleuScore& s) { return dictOf(s); }, "nmt-score --json's fields, unrounded")
      .def("__eq__", [](const BleuScore& a, const BleuScore& b) { return stateOf(a).equal(stateOf(b)); },
           py::arg("other"))
      .def(py::pickle([](const BleuScore& s) { return stateOf(s); }, [](const py::tuple& t) { return bleuFrom(t); }))
      .def("__str__", &BleuScore::format)
      .def("__repr__", [](const BleuScore& s) { return "<" + s.format() + ">"; });
  m.def(
      "bleu",
      [](const py::object& hypotheses, const py::object& references, bool lowercase) {
        return corpusScore(&corpusBleu, textsArgument(hypotheses, "hypotheses"), references, lowercase);
      },
      py::arg("hypotheses"), py::arg("references"), py::arg("lowercase") = false,
      "Corpus BLEU, nmt-score's (and sacreBLEU's) number. references: a list of strings (one reference per "
      "hypothesis) or a list of such lists (several references).");

  py::class_<ChrfScore>(m, "ChrfScore", "Corpus chrF as sacreBLEU 2.x computes it by default.")
      .def_readonly("score", &ChrfScore::score)
      .def_readonly("beta", &ChrfScore::beta)
      .def_readonly("char_order", &ChrfScore::charOrder, "character n-grams up to this order")
      .def_readonly("lowercase", &ChrfScore::lowercase, "scored lowercased")
      .def("to_dict", [](const ChrfScore& s) { return dictOf(s); }, "nmt-score --json's fields, unrounded")
      .def("__eq__", [](const ChrfScore& a, const ChrfScore& b) { return stateOf(a).equal(stateOf(b)); },
           py::arg("other"))
      .def(py::pickle([](const ChrfScore& s) { return stateOf(s); }, [](const py::tuple& t) { return chrfFrom(t); }))
      .def("__str__", &ChrfScore::format)
      .def("__repr__", [](const ChrfScore& s) { return "<" + s.format() + ">"; });
  m.def(
      "chrf",
      [](const py::object& hypotheses, const py::object& references, bool lowercase) {
        return corpusScore(&corpusChrf, textsArgument(hypotheses, "hypotheses"), references, lowercase);
      },
      py::arg("hypotheses"), py::arg("references"), py::arg("lowercase") = false,
      "Corpus chrF2, nmt-score's (and sacreBLEU's) number; references as for bleu().");

  const BpeTrainOptions training;
  py::class_<BpeModel, std::shared_ptr<BpeModel>>(m, "Bpe", "A SentencePiece BPE model (PREFIX.model): text <-> pieces.")
      .def(py::init([](const std::string& path) {
             if (!files::exists(path)) throw MissingFileError("cannot open BPE model " + path + ": No such file or directory");
             return std::make_shared<BpeModel>(path);
           }),
           py::arg("path"), "Loads PREFIX.model (as written by nmt-bpe or nmt-train).")
      .def_static(
          "train",
          [](const std::vector<std::string>& inputs, const std::string& prefix, int vocabSize, double coverage,
             std::size_t sentences, unsigned seed, int threads) {
            for (const auto& input : inputs)
              if (!files::exists(input)) throw MissingFileError("cannot open " + input + ": No such file or directory");
            BpeTrainOptions options;
            options.inputs = inputs;
            options.modelPrefix = prefix;
            options.vocabSize = vocabSize;
            options.characterCoverage = coverage;
            options.inputSentenceLimit = sentences;
            options.seed = seed;
            options.threads = threads;
            {
              py::gil_scoped_release release;
              trainBpeModel(options);
            }
            return std::make_shared<BpeModel>(prefix + ".model");
          },
          py::arg("inputs"), py::arg("prefix"), py::arg("vocab_size") = training.vocabSize,
          py::arg("character_coverage") = training.characterCoverage,
          py::arg("sentences") = training.inputSentenceLimit, py::arg("seed") = training.seed,
          py::arg("threads") = training.threads,
          "Trains a BPE model on text files (one sentence a line) into PREFIX.model and PREFIX.vocab, as nmt-bpe "
          "does; returns it. sentences: 0 trains on every line, else on a seeded sample of that many.")
      .def("encode", [](const BpeModel& b, const std::string& text) { return b.encodePieces(text); }, py::arg("text"),
           "the text's pieces")
      .def("encode_ids", [](const BpeModel& b, const std::string& text) { return b.encodeIds(text); }, py::arg("text"))
      .def("decode", [](const BpeModel& b, const std::vector<std::string>& pieces) { return b.decodePieces(pieces); },
           py::arg("pieces"))
      .def("decode_ids", [](const BpeModel& b, const std::vector<int>& ids) { return b.decodeIds(ids); }, py::arg("ids"))
      .def_property_readonly("vocab_size", &BpeModel::vocabSize)
      .def_property_readonly("path", &BpeModel::path)
      .def("__len__", &BpeModel::vocabSize)
      .def("__repr__", [](const BpeModel& b) {
        return "Bpe(" + py::repr(py::str(b.path())).cast<std::string>() + ", vocab_size=" + std::to_string(b.vocabSize()) + ")";
      });
}

}  // namespace nmt::python
