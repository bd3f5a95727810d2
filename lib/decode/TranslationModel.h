#pragma once

#include "data/LanguagePair.h"
#include "data/ModelDirectory.h"
#include "data/Shortlist.h"
#include "model/Seq2Seq.h"
#include "tokenization/BpeModel.h"
#include "tokenization/TextCodec.h"
#include "util/Runtime.h"

#include <memory>
#include <string>
#include <unordered_set>

namespace nmt {

// The most source pieces a sentence is translated from (the rest is cut, as at a run's max-length,
// with a warning), and the most pieces of a given translation forced decoding reads: a line of
// megabytes must not take a machine's memory in the encoder's attention.
constexpr std::size_t kMaxSourcePieces = 1024;

// What translation reads from a model directory: the weights and both BPE models, with the
// device they are on and the arithmetic to run them with.
struct TranslationModel {
  Seq2Seq model{nullptr};
  std::unique_ptr<BpeModel> sourceBpe;
  std::unique_ptr<BpeModel> targetBpe;
  std::size_t maxInputLength = kMaxSourcePieces;  // source pieces kept (the run's max-length, at most kMaxSourcePieces)
  c10::Device device{c10::kCPU};
  Precision precision = Precision::kFp32;  // under AutocastScope(device, precision)
  std::string directory;
  LanguagePair languages;  // as the training run recorded them (config.ini); unknown for older models
  std::unique_ptr<Shortlist> shortlist;  // loaded by loadShortlist (--shortlist on, or auto where there is one)
  bool int8 = false;                     // the linear layers run in int8 (quantize)
  std::unique_ptr<SourceWordCache> sourceWords;  // the source's words seen before (made with sourceBpe)
  // the characters of sourceBpe's pieces: any other is <unk> to the model (text preparation keeps it verbatim)
  std::shared_ptr<const std::unordered_set<char32_t>> sourceCharacters;

  // Its text <-> pieces (valid while the model lives).
  TextCodec codec() const { return TextCodec(*sourceBpe, *targetBpe, maxInputLength, sourceWords.get()); }
};

// Whether loading turns on a way of translating faster at slightly other scores: auto, the default,
// where it pays; on asks for it (an error where it cannot be had); off keeps it off.
enum class FeatureUse { kAuto, kOn, kOff };
// "on", "off" or "auto"; OptionError "`OPTION` must be on, off or auto, not 'X'" otherwise.
FeatureUse parseFeatureUse(const std::string& option, const std::string& text);
// "on", "off" or "auto": what parseFeatureUse reads.
std::string featureUseName(FeatureUse use);

// What loading settles once for every translation of the model.
struct ModelLoadOptions {
  std::string weights = "best.pt";  // which weights of the directory: best.pt or last.pt
  // Score only each batch's shortlist (the directory's shortlist.bin); auto: where the directory has
  // one (it cost no BLEU on any model measured: docs/performance.md).
  FeatureUse shortlist = FeatureUse::kAuto;
  // The linear layers in int8 (quantize below); auto: where int8RunsEveryLayer says int8 is fast
  // (BLEU within 0.3 of float32 on every model measured: docs/translation.md).
  FeatureUse int8 = FeatureUse::kAuto;
};

// Whether --int8 auto quantizes a model on this device at this precision: on the CPU, in fp32,
// with oneDNN's int8 products for every linear layer (int8EveryLayer). Elsewhere int8 reaches only
// the output layer through LibTorch's slower quantized products, or not at all.
bool int8RunsEveryLayer(const c10::Device& device, Precision precision);

// Loads DIR/options.weights in eval mode onto the runtime's device, with the shortlist and int8
// layers the options ask for. InputError naming the directory or file when something is missing
// (MissingFileError), corrupt or does not fit; for a missing shortlist with on, a damaged or another
// model's shortlist with on or auto; for int8 on off the CPU.
TranslationModel loadTranslationModel(const std::string& directory, const Runtime& runtime,
                                      const ModelLoadOptions& options = {});
// Loads the directory's shortlist.bin into model.shortlist; InputError naming it when it is
// missing (saying how to make one), damaged, or made for other BPE models.
void loadShortlist(TranslationModel& model);
// Quantizes the model's linear layers to int8 for every later translation (Encoder::quantize,
// Decoder::quantize; the checkpoint stays fp32). InputError saying why when the device is not the
// CPU or no fast int8 engine is there.
void quantize(TranslationModel& model);

}  // namespace nmt
