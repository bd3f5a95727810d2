#pragma once

#include "data/ModelDirectory.h"
#include "data/Shortlist.h"
#include "model/Seq2Seq.h"
#include "tokenization/BpeModel.h"
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
};

// Loads DIR/`weights` ("best.pt" or "last.pt") in eval mode onto the runtime's device.
// InputError naming the directory or file when something is missing, corrupt or does not fit.
TranslationModel loadTranslationModel(const std::string& directory, const Runtime& runtime,
                                      const std::string& weights = "best.pt");
// Loads the directory's shortlist.bin into model.shortlist; InputError naming it when it is
// missing (saying how to make one), damaged, or made for other BPE models.
void loadShortlist(TranslationModel& model);
// Quantizes the model's linear layers to int8 for every later translation (Encoder::quantize,
// Decoder::quantize; the checkpoint stays fp32). InputError saying why when the device is not the
// CPU or no fast int8 engine is there.
void quantize(TranslationModel& model);

}  // namespace nmt
