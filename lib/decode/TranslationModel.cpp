#include "decode/TranslationModel.h"

#include "decode/TranslatedLines.h"

#include "kernels/Int8Linear.h"
#include "util/FileSystem.h"
#include "util/HeapReuse.h"
#include "util/InputError.h"

#include <algorithm>
#include <cctype>

namespace nmt {
namespace {

// The run's max-length from config.ini ("max-length = 100"), at most kMaxSourcePieces (also when
// absent, 0 or out of range).
std::size_t configuredMaxLength(const ModelDirectory& dir) {
  const std::string value = dir.configValue("max-length");
  if (value.empty() || value.size() > 9 || !std::all_of(value.begin(), value.end(), ::isdigit)) return kMaxSourcePieces;
  const std::size_t length = std::stoul(value);
  return length == 0 ? kMaxSourcePieces : std::min(length, kMaxSourcePieces);
}

}  // namespace

FeatureUse parseFeatureUse(const std::string& option, const std::string& text) {
  for (const auto use : {FeatureUse::kAuto, FeatureUse::kOn, FeatureUse::kOff})
    if (text == featureUseName(use)) return use;
  throw OptionError("`" + option + "` must be on, off or auto, not '" + text + "'");
}

std::string featureUseName(FeatureUse use) {
  switch (use) {
    case FeatureUse::kOn: return "on";
    case FeatureUse::kOff: return "off";
    case FeatureUse::kAuto: break;
  }
  return "auto";
}

bool int8RunsEveryLayer(const c10::Device& device, Precision precision) {
  return device.is_cpu() && precision == Precision::kFp32 && int8EveryLayer();
}

TranslationModel loadTranslationModel(const std::string& directory, const Runtime& runtime,
                                      const ModelLoadOptions& options) {
  const ModelDirectory dir(directory);
  dir.requireExisting();
  TranslationModel t;
  t.sourceBpe = std::make_unique<BpeModel>(dir.sourceBpeModel());
  t.targetBpe = std::make_unique<BpeModel>(dir.targetBpeModel());
  t.sourceWords = std::make_unique<SourceWordCache>(*t.sourceBpe);
  t.sourceCharacters = charactersOf(*t.sourceBpe);
  t.model = loadModel(dir.root() + "/" + options.weights, runtime.device);
  t.device = runtime.device;
  t.precision = runtime.precision;
  const auto& config = t.model->config();
  if (config.sourceVocab != t.sourceBpe->vocabSize() || config.targetVocab != t.targetBpe->vocabSize())
    throw InputError("model directory " + dir.root() + ": the BPE models (" + std::to_string(t.sourceBpe->vocabSize()) +
                     " and " + std::to_string(t.targetBpe->vocabSize()) + " pieces) do not fit the model (" +
                     std::to_string(config.sourceVocab) + " and " + std::to_string(config.targetVocab) + ")");
  t.model->eval();
  t.maxInputLength = configuredMaxLength(dir);
  t.languages = recordedLanguages(dir);
  t.directory = dir.root();
  if (options.shortlist == FeatureUse::kOn || (options.shortlist == FeatureUse::kAuto && files::exists(dir.shortlist())))
    loadShortlist(t);
  if (options.int8 == FeatureUse::kOn ||
      (options.int8 == FeatureUse::kAuto && int8RunsEveryLayer(t.device, t.precision)))
    quantize(t);
  // what loading (and quantizing: the fp32 layers int8 replaces) freed, reuseFreedMemory would keep
  returnFreedMemory();
  return t;
}

void quantize(TranslationModel& model) {
  if (!model.device.is_cpu()) throw OptionError("`int8` is for the CPU; this run's device is " + model.device.str());
  useInt8Engine();
  model.model->encoder().quantize();
  model.model->decoder().quantize();
  model.int8 = true;
}

void loadShortlist(TranslationModel& model) {
  const ModelDirectory dir(model.directory);
  const auto& config = model.model->config();
  model.shortlist = std::make_unique<Shortlist>(
      Shortlist::load(dir.shortlist(), Shortlist::keyFor(dir, config.sourceVocab, config.targetVocab)));
}

}  // namespace nmt
