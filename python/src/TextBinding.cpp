#include "Bindings.h"

#include "eval/Bleu.h"
#include "eval/Chrf.h"
#include "tokenization/BpeModel.h"
#include "tokenization/BpeTrainer.h"
#include "util/FileSystem.h"
#include "util/InputError.h"

#include <pybind11/stl.h>

#include <memory>

namespace py = pybind11;

namespace nmt::python {
namespace {

// sacreBLEU's shapes: one reference per hypothesis (a list of strings), or several streams (a list
// of lists, each as long as the hypotheses).
std::vector<std::vector<std::string>> referenceStreams(const py::object& references) {
  if (py::isinstance<py::str>(references)) throw InputError("references must be a list of strings or of lists");
  const auto list = references.cast<py::list>();
  if (list.size() > 0 && py::isinstance<py::str>(list[0])) return {references.cast<std::vector<std::string>>()};
  return references.cast<std::vector<std::vector<std::string>>>();
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
      .def("__str__", &BleuScore::format)
      .def("__repr__", [](const BleuScore& s) { return "<" + s.format() + ">"; });
  m.def(
      "bleu",
      [](const std::vector<std::string>& hypotheses, const py::object& references, bool lowercase) {
        return corpusScore(&corpusBleu, hypotheses, references, lowercase);
      },
      py::arg("hypotheses"), py::arg("references"), py::arg("lowercase") = false,
      "Corpus BLEU, nmt-score's (and sacreBLEU's) number. references: a list of strings (one reference per "
      "hypothesis) or a list of such lists (several references).");

  py::class_<ChrfScore>(m, "ChrfScore", "Corpus chrF as sacreBLEU 2.x computes it by default.")
      .def_readonly("score", &ChrfScore::score)
      .def_readonly("beta", &ChrfScore::beta)
      .def("__str__", &ChrfScore::format)
      .def("__repr__", [](const ChrfScore& s) { return "<" + s.format() + ">"; });
  m.def(
      "chrf",
      [](const std::vector<std::string>& hypotheses, const py::object& references, bool lowercase) {
        return corpusScore(&corpusChrf, hypotheses, references, lowercase);
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
      .def("__len__", &BpeModel::vocabSize);
}

}  // namespace nmt::python
