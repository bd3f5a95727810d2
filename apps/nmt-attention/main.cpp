// nmt-attention: exports what a trained model attends to, as CSV (and SVG) files.
#include "attention/AttentionHeads.h"
#include "attention/AttentionWriter.h"
#include "attention/HeatmapOf.h"
#include "common/AppMain.h"
#include "common/SharedOptions.h"
#include "decode/Translator.h"
#include "util/CudaRuntime.h"
#include "util/InputError.h"
#include "util/TextLineReader.h"

#include <fmt/core.h>

namespace po = boost::program_options;
using namespace nmt;

int main(int argc, char* argv[]) {
  app::runMain("nmt-attention", [&] {
    app::setVersionDetails(runtimeDescription());
    std::string modelDir, input, outputDir, format = "matrix", reference;
    bool svg = false, selfAttention = false, allHeads = false;
    RuntimeOptions runtimeOptions;
    TranslatorOptions options;
    OptionTable table("Options");
    table.addRequired("model,m", modelDir, "model directory written by nmt-train");
    table.addRequired("input,i", input, "source sentences, one a line");
    table.addRequired("output-dir,o", outputDir, "where the CSV (and SVG) files go");
    table.add("format", format,
              "matrix: one CSV per sentence (target rows x source columns); long: one CSV, a row per weight");
    table.addInvocation("reference,r", reference,
                        "translations to force-decode (line-aligned with --input) instead of the model's own");
    table.addFlag("svg", svg, "also write a heatmap picture per sentence (OUT/000001.svg)");
    table.addFlag("self-attention", selfAttention,
                  "transformer encoder: also write each layer's per-head self-attention "
                  "(OUT/000001.self.layerL.headH.csv); transformer decoder: its self-attention too "
                  "(OUT/000001.decoder-self.layerL.headH.csv)");
    table.addFlag("all-heads", allHeads,
                  "transformer decoder: also write each layer's per-head cross-attention "
                  "(OUT/000001.cross.layerL.headH.csv); the main matrix is the mean over the last layer's heads");
    app::declareBatchOptions(table, options);
    app::declareLengthOptions(table, options.decoding);
    app::ModelOptions modelOptions;
    app::declareModelOptions(table, modelOptions);
    declareRuntimeOptions(table, runtimeOptions);
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-attention",
                               "nmt-attention --model DIR --input FILE --output-dir OUT [--format matrix|long] "
                               "[--reference FILE] [--svg] [--self-attention] [--all-heads]",
                               argc, argv, table.description(), {}, vm))
      return 0;
    if (format != "matrix" && format != "long") throw po::error("--format must be matrix or long, not '" + format + "'");
    app::checkBatchOptions(options);
    app::checkBeamOptions(options.decoding);

    const Runtime runtime = app::startProgram(runtimeOptions, ModelUse::kTranslation);
    auto model = app::loadModelFor(modelOptions, modelDir, runtime);
    if (selfAttention && !model.model->encoder().hasSelfAttentionHeads())
      throw InputError("--self-attention needs a model with the transformer encoder; " + modelDir + " has the " +
                       model.model->config().encoder + " encoder");
    const bool decoderHeads = model.model->decoder().hasAttentionHeads();
    if (allHeads && !decoderHeads)
      throw InputError("--all-heads needs a model with the transformer decoder; " + modelDir + " has the " +
                       model.model->config().decoder + " decoder");
    const auto sources = readLines(input);
    std::vector<std::string> references;
    if (!reference.empty()) {
      references = readLines(reference);
      if (references.size() != sources.size())
        throw InputError(fmt::format("{} has {} lines but {} has {}; they must be line-aligned", input, sources.size(),
                                     reference, references.size()));
    }

    options.decoding.keepAttention = true;
    Translator translator(model, options);
    AttentionWriter writer(outputDir, format, svg);
    // the model's own translations, batched; or forced decoding of the references
    const auto translations = reference.empty() ? translator.translate(sources) : translator.score(sources, references, reference);
    c10::InferenceMode inference;
    const AutocastScope autocast(model.device, model.precision);
    const HeadChoice heads{selfAttention, allHeads, selfAttention && decoderHeads};
    std::size_t written = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const auto& t = translations[i];
      if (t.sourceIds.empty()) continue;  // an empty line has nothing to attend to
      AttentionRecord record;
      record.sentence = i + 1;
      record.source = sources[i];
      record.translation = t.best().text;
      if (heads.encoderSelf || heads.cross || heads.decoderSelf)
        record.headMaps = attentionHeads(model.model, t.sourceIds, t.sourcePieces, t.best().ids, t.best().pieces, heads);
      record.attention = heatmapOf(t.attention, t.best().pieces, t.sourcePieces);
      writer.add(record);
      ++written;
    }
    writer.finish();
    fmt::print(stderr, "nmt-attention: wrote attention of {} sentences to {}\n", written, outputDir);
    return 0;
  });
}
