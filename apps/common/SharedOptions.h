#pragma once

#include "common/OptionTable.h"
#include "decode/DecodingOptions.h"
#include "decode/TranslationModel.h"
#include "decode/Translator.h"
#include "util/Runtime.h"

namespace nmt::app {

// The option groups several programs share, each declared once with one help text.

// --threads, --device, --precision.
void declareRuntimeOptions(OptionTable& table, RuntimeOptions& options);
// --max-ratio and --length-penalty.
void declareLengthOptions(OptionTable& table, DecodingOptions& options);
// --shortlist on|off and --int8: less arithmetic per piece.
void declareFastDecodingOptions(OptionTable& table, DecodingOptions& options);
// --batch-size and --parallel-batches (0, the default: as many as OpenBLAS has threads, on a CPU);
// resolveBatchOptions checks them and settles that default once the runtime is known.
void declareBatchOptions(OptionTable& table, TranslatorOptions& options);
void resolveBatchOptions(TranslatorOptions& options, const Runtime& runtime);
// --beam and --nbest; checkBeamOptions says when they do not fit together.
void declareBeamOptions(OptionTable& table, DecodingOptions& options);
void checkBeamOptions(const DecodingOptions& options);

// loadTranslationModel, with its shortlist and int8 output layer when the options ask for them.
TranslationModel loadModelFor(const DecodingOptions& options, const std::string& directory, const Runtime& runtime,
                              const std::string& weights);

// The start-up every program that runs a model calls (startRuntime), with a malformed
// --precision reported as an option error (exit code 2).
Runtime startProgram(const RuntimeOptions& options);

}  // namespace nmt::app
