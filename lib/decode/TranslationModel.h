#pragma once

#include "data/ModelDirectory.h"
#include "data/Shortlist.h"
#include "model/Seq2Seq.h"
#include "tokenization/BpeModel.h"
#include "tokenization/TextCodec.h"
#include "util/Runtime.h"

#include <memory>
#include <string>

namespace nmt {

// What translation reads from a model directory: the weights and both BPE models, with the
// device they are on and the arithmetic to run them with.
struct TranslationModel {
  Seq2Seq model{nullptr};
  std::unique_ptr<BpeModel> sourceBpe;
  std::unique_ptr<BpeModel> targetBpe;
  std::size_t maxInputLength = 0;  // source pieces kept (the training run's max-length; 0: no limit)
  c10::Device device{c10::kCPU};
  Precision precision = Precision::kFp32;  // under AutocastScope(device, precision)
  std::string directory;
  std::unique_ptr<Shortlist> shortlist;  // loaded by loadShortlist (--shortlist on, or auto where there is one)
  bool int8 = false;                     // the linear layers run in int8 (quantize)

  // Its text <-> pieces (valid while the model lives).
  TextCodec codec() const { return TextCodec(*sourceBpe, *targetBpe, maxInputLength); }
};

// Whether translation scores only each batch's shortlist (the directory's shortlist.bin): auto,
// the default, where the directory has one (it cost no BLEU on any model measured: docs/performance.md).
enum class ShortlistUse { kAuto, kOn, kOff };
// "on", "off" or "auto"; InputError "shortlist must be on, off or auto, not 'X'" otherwise.
ShortlistUse parseShortlistUse(const std::string& text);

// What loading settles once for every translation of the model.
struct ModelLoadOptions {
  std::string weights = "best.pt";  // which weights of the directory: best.pt or last.pt
  ShortlistUse shortlist = ShortlistUse::kAuto;
  bool int8 = false;  // the linear layers in int8 on the CPU (quantize below)
};

// Loads DIR/options.weights in eval mode onto the runtime's device, with the shortlist and int8
// layers the options ask for. InputError naming the directory or file when something is missing
// (MissingFileError), corrupt or does not fit; for a missing shortlist with on, a damaged or another
// model's shortlist with on or auto; for int8 off the CPU.
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
