#include "Arguments.h"
#include "Bindings.h"
#include "Errors.h"

#include "decode/OptionHelp.h"
#include "decode/Translator.h"
#include "util/InputError.h"
#include "util/OutputFile.h"
#include "util/Runtime.h"
#include "util/RuntimeOptionTable.h"
#include "util/TextLineReader.h"

#include <fmt/core.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <variant>

namespace py = pybind11;

namespace nmt::python {
namespace {

// A model loaded once, and the translations asked of it from any Python thread, run one at a time
// (a model's modules keep per-call state) with the GIL released.
class PythonTranslator {
 public:
  PythonTranslator(const std::string& directory, const std::string& device, std::optional<int> threads,
                   const std::variant<bool, std::string>& shortlist, const std::variant<bool, std::string>& int8,
                   const std::string& weights,
                   const std::string& precision) {
    RuntimeOptions options;
    options.device = device;
    options.threads = threads.value_or(0);
    options.precision = precision;
    runtime_ = startRuntime(options);
    ModelLoadOptions load;
    load.shortlist = featureUse("shortlist", shortlist);
    load.int8 = featureUse("int8", int8);
    load.weights = weights;
    model_ = std::make_unique<TranslationModel>(loadTranslationModel(directory, runtime_, load));
  }

  std::vector<Translation> translate(std::vector<std::string> texts, const TranslatorOptions& options) {
    checkLines(texts, "texts");
    const std::lock_guard<std::mutex> lock(mutex_);
    Translator translator(*model_, options);
    return translator.translate(texts);
  }

  std::vector<Translation> score(std::vector<std::string> sources, std::vector<std::string> targets,
                                 const TranslatorOptions& options) {
    if (sources.size() != targets.size())
      throw InputError(std::to_string(sources.size()) + " sources but " + std::to_string(targets.size()) + " targets");
    checkLines(sources, "sources");
    checkLines(targets, "targets");
    const std::lock_guard<std::mutex> lock(mutex_);
    Translator translator(*model_, options);
    return translator.score(sources, targets, "targets");
  }

  // The input file's lines translated into `output` (its best hypotheses, a line each), written
  // under a temporary name and renamed, as nmt-translate --output writes; the translations.
  std::vector<Translation> translateFile(const std::string& input, const std::string& output,
                                         const TranslatorOptions& options) {
    auto translations = translate(readLines(input), options);
    OutputFile file(output);
    for (const auto& t : translations) file.stream() << (t.empty() ? "" : t.best().text) << '\n';
    file.commit();
    return translations;
  }

  const TranslationModel& model() const { return *model_; }
  const Runtime& runtime() const { return runtime_; }

 private:
  // on, off or auto; True and False read as on and off.
  static FeatureUse featureUse(const std::string& name, const std::variant<bool, std::string>& value) {
    if (const auto* on = std::get_if<bool>(&value)) return *on ? FeatureUse::kOn : FeatureUse::kOff;
    return parseFeatureUse(name, std::get<std::string>(value));
  }

  // As every line a program reads: "texts:3: control character U+0007 at byte 4 (only tab is allowed)".
  static void checkLines(std::vector<std::string>& lines, const std::string& name) {
    for (std::size_t i = 0; i < lines.size(); ++i) checkInputLine(lines[i], name, i + 1);
  }

  Runtime runtime_;
  std::unique_ptr<TranslationModel> model_;
  std::mutex mutex_;
};

// Whether Ctrl-C (or another signal whose Python handler raises) arrived: its handler runs here, with
// the GIL, and what it raised becomes the call's exception (Errors.cpp, Interrupted).
bool signalRaised() {
  py::gil_scoped_acquire gil;
  return PyErr_CheckSignals() != 0;
}

// A `progress` callable (or None) as the Translator's hook: called with the sentences done so far, with
// the GIL; what it raises stops the call and comes out of it. Its copies share one holder, so that
// copying the options without the GIL touches no Python reference count.
std::function<void(std::size_t)> progressHook(const py::object& progress) {
  if (progress.is_none()) return {};
  if (!PyCallable_Check(progress.ptr()))
    throw py::type_error(fmt::format("progress must be callable, not {}", Py_TYPE(progress.ptr())->tp_name));
  auto holder = std::make_shared<py::object>(progress);
  return [holder](std::size_t done) {
    py::gil_scoped_acquire gil;
    (*holder)(done);
  };
}

// What every call takes: its batch size (checked), Ctrl-C, and its progress callable.
TranslatorOptions callOptions(int64_t batchSize, const py::object& progress) {
  checkBatchSize(batchSize);
  TranslatorOptions options;
  options.batchSize = static_cast<std::size_t>(batchSize);
  options.interrupted = signalRaised;
  options.progress = progressHook(progress);
  return options;
}

TranslatorOptions translatorOptions(int64_t beam, int64_t nbest, double lengthPenalty, bool attention,
                                    int64_t batchSize, double maxRatio, const py::object& progress) {
  TranslatorOptions options = callOptions(batchSize, progress);
  options.decoding.beamSize = beam;
  options.decoding.nbest = nbest;
  options.decoding.lengthPenalty = lengthPenalty;
  options.decoding.keepAttention = attention;
  options.decoding.limits.ratio = maxRatio;
  checkDecodingOptions(options.decoding);
  return options;
}

// One warning for a call whose sentences were cut, as nmt-translate warns: how many, and where to look.
void warnTruncated(const std::vector<Translation>& translations, std::size_t maxInputLength) {
  std::size_t cut = 0, first = 0;
  for (std::size_t i = translations.size(); i-- > 0;)
    if (translations[i].truncated) ++cut, first = i;
  if (cut == 0) return;
  const auto message = fmt::format(
      "{} of {} sentences had more pieces than the model reads ({}) and were cut; the first is sentence {} "
      "(Translation.truncated)", cut, translations.size(), maxInputLength, first);
  const py::object category = py::module_::import("nmt._nmt").attr("TruncationWarning");  // NmtModule.cpp
  if (PyErr_WarnEx(category.ptr(), message.c_str(), 1) != 0) throw py::error_already_set();  // at the caller's line
}

// A docstring's argument lines, "    name: help", from the help texts the programs show (OptionHelp.h).
std::string argumentsDoc(std::initializer_list<std::pair<const char*, const char*>> arguments) {
  std::string doc;
  for (const auto& [name, text] : arguments) doc += std::string("\n    ") + name + ": " + pythonSpelling(text);
  return doc;
}

const std::string& decodingArgumentsDoc() {
  static const std::string doc =
      argumentsDoc({{"beam", help::kBeam},
                    {"nbest", "hypotheses kept per sentence, best first (at most `beam`)"},
                    {"length_penalty", help::kLengthPenalty},
                    {"attention", "keep the best hypothesis' attention over the source (Translation.attention)"},
                    {"batch_size", help::kBatchSize},
                    {"max_ratio", help::kMaxRatio},
                    {"progress", "called with the number of sentences done so far, every 20 ms or so and at the end "
                                 "(tqdm's update), on this thread; what it raises stops the call"}}) +
      "\n    A value out of bounds (NaN and infinities included) raises ValueError; Ctrl-C raises KeyboardInterrupt.";
  return doc;
}

// Translator.translate of a list of sentences (a list back) or of one (a Translation back): the
// same keywords, defaults and checks for both.
template <typename Texts>
void defineTranslate(py::class_<PythonTranslator>& translator, const char* textsName, const char* doc) {
  const DecodingOptions decoding;
  const TranslatorOptions batching;
  translator.def(
      "translate",
      [](PythonTranslator& self, const Texts& given, int64_t beam, int64_t nbest, double lengthPenalty, bool attention,
         int64_t batchSize, double maxRatio, const py::object& progress) {
        const auto options = translatorOptions(beam, nbest, lengthPenalty, attention, batchSize, maxRatio, progress);
        std::vector<std::string> texts;
        if constexpr (std::is_same_v<Texts, std::string>)
          texts.push_back(given);
        else
          texts = textsArgument(given, "texts");
        std::vector<Translation> translations;
        {
          py::gil_scoped_release release;
          translations = self.translate(std::move(texts), options);
        }
        warnTruncated(translations, self.model().maxInputLength);
        if constexpr (std::is_same_v<Texts, std::string>)
          return py::cast(std::move(translations.front()));
        else
          return py::cast(std::move(translations));
      },
      py::arg(textsName), py::arg("beam") = decoding.beamSize, py::arg("nbest") = decoding.nbest,
      py::arg("length_penalty") = decoding.lengthPenalty, py::arg("attention") = false,
      py::arg("batch_size") = batching.batchSize, py::arg("max_ratio") = decoding.limits.ratio,
      py::arg("progress") = py::none(), doc);
}

const std::string& loadDoc() {
  static const std::string doc =
      "Loads a model directory.\n" +
      argumentsDoc({{"device", help::kDevice},
                    {"threads", "OpenBLAS threads for matrix work (None: all cores); process-wide"},
                    {"shortlist", help::kShortlist},
                    {"int8", help::kInt8},
                    {"weights", help::kWeights},
                    {"precision", help::kPrecision}}) +
      "\n    (int8 and shortlist: True and False read as on and off)";
  return doc;
}

}  // namespace

void bindTranslator(py::module_& m) {
  const DecodingOptions decoding;
  const TranslatorOptions batching;
  static const std::string translateDoc =
      std::string("Translates sentences; a Translation for each, in order.\n") + decodingArgumentsDoc();
  py::class_<PythonTranslator> translator(m, "Translator",
                                          "A model directory written by nmt-train, loaded once, translating text.");
  const ModelLoadOptions loading;
  translator.def(py::init([](const py::object& modelDir, const std::string& device, std::optional<int> threads,
                             const std::variant<bool, std::string>& shortlist,
                             const std::variant<bool, std::string>& int8, const std::string& weights,
                             const std::string& precision) {
                    return std::make_unique<PythonTranslator>(pathArgument(modelDir, "model_dir"), device, threads,
                                                              shortlist, int8, weights, precision);
                  }),
           py::arg("model_dir"), py::arg("device") = "cpu", py::arg("threads") = py::none(),
           py::arg("shortlist") = featureUseName(loading.shortlist), py::arg("int8") = featureUseName(loading.int8),
           py::arg("weights") = loading.weights,
           py::arg("precision") = "fp32", loadDoc().c_str());
  defineTranslate<std::string>(translator, "text", "Translates one sentence.");
  defineTranslate<py::object>(translator, "texts", translateDoc.c_str());
  translator
      .def(
          "translate_file",
          [](PythonTranslator& self, const py::object& input, const py::object& output, int64_t beam,
             double lengthPenalty, int64_t batchSize, double maxRatio, const py::object& progress) {
            const auto options = translatorOptions(beam, 1, lengthPenalty, false, batchSize, maxRatio, progress);
            const auto from = pathArgument(input, "input"), to = pathArgument(output, "output");
            std::vector<Translation> translations;
            {
              py::gil_scoped_release release;
              translations = self.translateFile(from, to, options);
            }
            warnTruncated(translations, self.model().maxInputLength);
            return translations.size();
          },
          py::arg("input"), py::arg("output"), py::arg("beam") = decoding.beamSize,
          py::arg("length_penalty") = decoding.lengthPenalty, py::arg("batch_size") = batching.batchSize,
          py::arg("max_ratio") = decoding.limits.ratio, py::arg("progress") = py::none(),
          "Translates a file line by line into `output` (written under a temporary name, then renamed, as "
          "nmt-translate --output does); returns the number of lines.")
      .def(
          "score",
          [](PythonTranslator& self, const py::object& sourcesGiven, const py::object& targetsGiven,
             int64_t batchSize, const py::object& progress) {
            const auto options = callOptions(batchSize, progress);
            auto sources = textsArgument(sourcesGiven, "sources"), targets = textsArgument(targetsGiven, "targets");
            py::gil_scoped_release release;
            return self.score(std::move(sources), std::move(targets), options);
          },
          py::arg("sources"), py::arg("targets"), py::arg("batch_size") = batching.batchSize,
          py::arg("progress") = py::none(),
          "Forced decoding: each source with its given target. Translation.score is the target's "
          "log-probability (</s> included), Translation.attention its attention.")
      .def_property_readonly("model_dir", [](const PythonTranslator& t) { return t.model().directory; })
      .def_property_readonly("device", [](const PythonTranslator& t) { return t.model().device.str(); })
      .def_property_readonly("shortlist", [](const PythonTranslator& t) { return t.model().shortlist != nullptr; },
                             "whether translation scores only each batch's shortlist")
      .def_property_readonly("int8", [](const PythonTranslator& t) { return t.model().int8; })
      .def_property_readonly("runtime", [](const PythonTranslator& t) { return t.runtime().describe(); },
                             "the device, precision and threads as they are now (threads are process-wide: another "
                             "Translator may have set them since)")
      .def("__repr__", [](const PythonTranslator& t) {
        const auto& model = t.model();
        return fmt::format("Translator({}, {}/{}{}{}, {})", py::repr(py::str(model.directory)).cast<std::string>(),
                           model.model->config().encoder, model.model->config().decoder, model.int8 ? ", int8" : "",
                           model.shortlist ? ", shortlist" : "", model.device.str());
      });
}

}  // namespace nmt::python
