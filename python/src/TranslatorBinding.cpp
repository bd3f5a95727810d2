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
    runtime_ = startRuntime(options, ModelUse::kTranslation);
    ModelLoadOptions load;
    load.shortlist = featureUse("shortlist", shortlist);
    load.int8 = featureUse("int8", int8);
    load.weights = weights;
    model_ = std::make_unique<TranslationModel>(loadTranslationModel(directory, runtime_, load));
  }

  std::vector<Translation> translate(std::vector<std::string> texts, const TranslatorOptions& options,
                                     std::vector<std::string> prefixes = {}) {
    checkLines(texts, "texts");
    checkLines(prefixes, "prefix");
    const std::lock_guard<std::mutex> lock(mutex_);
    Translator translator(*model_, options);
    return translator.translate(texts, prefixes, "prefix");
  }

  std::vector<Alternative> alternatives(std::string text, std::string prefix, std::size_t count,
                                        const TranslatorOptions& options) {
    checkInputLine(text, "text", 1);
    checkInputLine(prefix, "prefix", 1);
    const std::lock_guard<std::mutex> lock(mutex_);
    Translator translator(*model_, options);
    return translator.alternatives(text, prefix, count);
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

// The keywords translate() and translate_file() share beyond the beam: sampling and repeats.
void setSampling(DecodingOptions& decoding, int64_t topk, double topp, double temperature, uint64_t seed,
                 int64_t noRepeatNgram) {
  decoding.sampling = {topk, topp, temperature, seed};
  decoding.noRepeatNgram = noRepeatNgram;
}

// The options as the keywords set them, refused (ValueError) as the Translator would refuse them.
TranslatorOptions checked(TranslatorOptions options) {
  checkDecodingOptions(options.decoding);
  checkTranslatorOptions(options, c10::Device(c10::kCPU));
  return options;
}

// translate()'s `glossary`: None, a dict {source term: target term}, an iterable of (source, target)
// pairs, or a TSV file's path (str or os.PathLike).
std::shared_ptr<const Glossary> glossaryArgument(const py::object& value) {
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::str>(value) || py::hasattr(value, "__fspath__"))
    return std::make_shared<const Glossary>(Glossary::read(pathArgument(value, "glossary")));
  std::vector<std::pair<std::string, std::string>> entries;
  const auto term = [](const py::handle& h, const std::string& where) {
    if (!py::isinstance<py::str>(h))
      throw py::type_error(fmt::format("{} must be str, not {}", where, Py_TYPE(h.ptr())->tp_name));
    return h.cast<std::string>();
  };
  if (py::isinstance<py::dict>(value)) {
    for (const auto& [source, target] : value.cast<py::dict>())
      entries.emplace_back(term(source, "glossary's keys"), term(target, "glossary's values"));
  } else {
    if (!py::isinstance<py::iterable>(value))
      throw py::type_error(fmt::format("glossary must be a dict, (source, target) pairs or a path, not {}",
                                       Py_TYPE(value.ptr())->tp_name));
    std::size_t i = 0;
    for (const auto& item : value) {
      const auto where = fmt::format("glossary[{}]", i++);
      if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item) || py::len(item) != 2)
        throw py::type_error(where + " must be a (source term, target term) pair");
      const auto pair = item.cast<py::sequence>();
      entries.emplace_back(term(pair[0], where + "[0]"), term(pair[1], where + "[1]"));
    }
  }
  return std::make_shared<const Glossary>(Glossary(std::move(entries), "glossary"));
}

// The prefixes of translate()'s `prefix`: None (none), one str for one sentence, or one str (or None) a
// sentence for a list of them.
std::vector<std::string> prefixesArgument(const py::object& prefix, std::size_t sentences, bool one) {
  if (prefix.is_none()) return {};
  if (one) {
    if (!py::isinstance<py::str>(prefix))
      throw py::type_error(fmt::format("prefix must be str or None, not {}", Py_TYPE(prefix.ptr())->tp_name));
    return {prefix.cast<std::string>()};
  }
  if (py::isinstance<py::str>(prefix))
    throw py::type_error("prefix must be a list of str (or None), one a sentence, not str");
  std::vector<std::string> out;
  std::size_t i = 0;
  for (const auto& item : py::iter(prefix)) {
    if (item.is_none()) out.emplace_back();
    else if (py::isinstance<py::str>(item)) out.push_back(item.cast<std::string>());
    else throw py::type_error(fmt::format("prefix[{}] must be str or None, not {}", i, Py_TYPE(item.ptr())->tp_name));
    ++i;
  }
  if (out.size() != sentences)
    throw py::value_error(fmt::format("prefix has {} items for {} sentences: give one a sentence (None: none)",
                                      out.size(), sentences));
  return out;
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
                    {"sampling_topk", help::kSamplingTopk},
                    {"sampling_topp", help::kSamplingTopp},
                    {"sampling_temperature", help::kSamplingTemperature},
                    {"seed", help::kSeed},
                    {"no_repeat_ngram", help::kNoRepeatNgram},
                    {"alignment", help::kAlignment},
                    {"alignment_threshold", help::kAlignmentThreshold},
                    {"replace_unknowns", help::kReplaceUnknowns},
                    {"split_sentences", help::kSplitSentences},
                    {"protect_spans", help::kProtectSpans},
                    {"restore_case", help::kRestoreCase},
                    {"cut_loops", help::kCutLoops},
                    {"glossary", "terminology (beam search): a dict {source term: target term}, (source, target) "
                                 "pairs, or a TSV file's path; Translation.missing_terms names a term the length "
                                 "limit left out"},
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
  const AlignmentOptions aligning;
  translator.def(
      "translate",
      [](PythonTranslator& self, const Texts& given, int64_t beam, int64_t nbest, double lengthPenalty, bool attention,
         int64_t batchSize, double maxRatio, const py::object& progress, const py::object& prefix, int64_t samplingTopk,
         double samplingTopp, double samplingTemperature, uint64_t seed, int64_t noRepeatNgram, bool alignment,
         double alignmentThreshold, bool replaceUnknowns, const py::object& glossary, bool splitSentences,
         bool protectSpans, bool restoreCase, bool cutLoops) {
        auto terms = glossaryArgument(glossary);
        auto options = callOptions(batchSize, progress);
        options.text = {splitSentences, protectSpans, restoreCase, ""};
        options.decoding.limits.cutLoops = cutLoops;
        options.decoding.beamSize = beam;
        options.decoding.nbest = nbest;
        options.decoding.lengthPenalty = lengthPenalty;
        options.decoding.keepAttention = attention;
        options.decoding.limits.ratio = maxRatio;
        setSampling(options.decoding, samplingTopk, samplingTopp, samplingTemperature, seed, noRepeatNgram);
        options.alignment = {alignment, alignmentThreshold, replaceUnknowns};
        options.glossary = std::move(terms);
        options = checked(std::move(options));
        constexpr bool one = std::is_same_v<Texts, std::string>;
        std::vector<std::string> texts;
        if constexpr (one)
          texts.push_back(given);
        else
          texts = textsArgument(given, "texts");
        auto prefixes = prefixesArgument(prefix, texts.size(), one);
        std::vector<Translation> translations;
        {
          py::gil_scoped_release release;
          translations = self.translate(std::move(texts), options, std::move(prefixes));
        }
        warnTruncated(translations, self.model().maxInputLength);
        if constexpr (one)
          return py::cast(std::move(translations.front()));
        else
          return py::cast(std::move(translations));
      },
      py::arg(textsName), py::arg("beam") = decoding.beamSize, py::arg("nbest") = decoding.nbest,
      py::arg("length_penalty") = decoding.lengthPenalty, py::arg("attention") = false,
      py::arg("batch_size") = batching.batchSize, py::arg("max_ratio") = decoding.limits.ratio,
      py::arg("progress") = py::none(), py::arg("prefix") = py::none(),
      py::arg("sampling_topk") = decoding.sampling.topk, py::arg("sampling_topp") = decoding.sampling.topp,
      py::arg("sampling_temperature") = decoding.sampling.temperature, py::arg("seed") = decoding.sampling.seed,
      py::arg("no_repeat_ngram") = decoding.noRepeatNgram, py::arg("alignment") = aligning.words,
      py::arg("alignment_threshold") = aligning.threshold, py::arg("replace_unknowns") = aligning.replaceUnknowns,
      py::arg("glossary") = py::none(), py::arg("split_sentences") = batching.text.splitSentences,
      py::arg("protect_spans") = batching.text.protectSpans, py::arg("restore_case") = batching.text.restoreCase,
      py::arg("cut_loops") = decoding.limits.cutLoops, doc);
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
      std::string("Translates sentences; a Translation for each, in order (prefix: a list with each one's "
                  "translation's beginning, a str or None).\n") +
      decodingArgumentsDoc();
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
  static const std::string translateOneDoc =
      "Translates one sentence (prefix: its translation's beginning, a str).\n" + decodingArgumentsDoc();
  defineTranslate<std::string>(translator, "text", translateOneDoc.c_str());
  defineTranslate<py::object>(translator, "texts", translateDoc.c_str());
  translator
      .def(
          "translate_file",
          [](PythonTranslator& self, const py::object& input, const py::object& output, int64_t beam,
             double lengthPenalty, int64_t batchSize, double maxRatio, const py::object& progress, int64_t samplingTopk,
             double samplingTopp, double samplingTemperature, uint64_t seed, int64_t noRepeatNgram,
             bool replaceUnknowns, const py::object& glossary, bool splitSentences, bool protectSpans,
             bool restoreCase, bool cutLoops) {
            auto terms = glossaryArgument(glossary);
            auto options = callOptions(batchSize, progress);
            options.text = {splitSentences, protectSpans, restoreCase, ""};
            options.decoding.limits.cutLoops = cutLoops;
            options.decoding.beamSize = beam;
            options.decoding.lengthPenalty = lengthPenalty;
            options.decoding.limits.ratio = maxRatio;
            setSampling(options.decoding, samplingTopk, samplingTopp, samplingTemperature, seed, noRepeatNgram);
            options.alignment.replaceUnknowns = replaceUnknowns;
            options.glossary = std::move(terms);
            options = checked(std::move(options));
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
          py::arg("sampling_topk") = decoding.sampling.topk, py::arg("sampling_topp") = decoding.sampling.topp,
          py::arg("sampling_temperature") = decoding.sampling.temperature, py::arg("seed") = decoding.sampling.seed,
          py::arg("no_repeat_ngram") = decoding.noRepeatNgram,
          py::arg("replace_unknowns") = AlignmentOptions().replaceUnknowns, py::arg("glossary") = py::none(),
          py::arg("split_sentences") = batching.text.splitSentences,
          py::arg("protect_spans") = batching.text.protectSpans, py::arg("restore_case") = batching.text.restoreCase,
          py::arg("cut_loops") = decoding.limits.cutLoops,
          "Translates a file line by line into `output` (written under a temporary name, then renamed, as "
          "nmt-translate --output does); returns the number of lines. Keywords as translate()'s.")
      .def(
          "alternatives",
          [](PythonTranslator& self, const std::string& text, const std::string& prefix, int64_t count, int64_t beam,
             double lengthPenalty, double maxRatio) {
            if (count < 1 || count > static_cast<int64_t>(kMaxAlternatives))
              throw OptionError(fmt::format("`count` must be between 1 and {}, not {}", kMaxAlternatives, count));
            auto options = callOptions(static_cast<int64_t>(TranslatorOptions().batchSize), py::none());
            options.decoding.beamSize = beam;
            options.decoding.lengthPenalty = lengthPenalty;
            options.decoding.limits.ratio = maxRatio;
            options = checked(std::move(options));
            py::gil_scoped_release release;
            return self.alternatives(text, prefix, static_cast<std::size_t>(count), options);
          },
          py::arg("text"), py::arg("prefix") = "", py::arg("count") = 5, py::arg("beam") = decoding.beamSize,
          py::arg("length_penalty") = decoding.lengthPenalty, py::arg("max_ratio") = decoding.limits.ratio,
          ("The `count` most likely pieces right after `prefix` (the translation's beginning; \"\": its first piece), "
           "most likely first (1 to " + std::to_string(kMaxAlternatives) +
           "), each an Alternative with the translation that follows it (beam: that search's width). The building "
           "block of interactive translation: a translator picks a word and the rest follows.")
              .c_str())
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
