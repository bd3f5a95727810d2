// nmt-attention: exports what a trained model attends to, as CSV (and SVG) files.
#include "common/AppMain.h"
#include "attention/AttentionHeads.h"
#include "attention/HeatmapOf.h"
#include "decode/Translator.h"
#include "attention/AttentionWriter.h"
#include "util/CudaRuntime.h"
#include "util/Device.h"
#include "util/HeapReuse.h"
#include "util/InputError.h"
#include "util/TextLineReader.h"
#include "util/Threads.h"

#include <fmt/core.h>

namespace po = boost::program_options;
using namespace nmt;

namespace {

std::vector<std::string> readLines(const std::string& path) {
  TextLineReader reader(path);
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(line)) lines.push_back(line);
  return lines;
}

}  // namespace

int main(int argc, char* argv[]) {
  return app::runMain("nmt-attention", [&] {
    app::setVersionDetails(runtimeDescription());
    std::string modelDir, input, outputDir, format, reference, device, weights;
    bool svg = false, selfAttention = false, allHeads = false;
    int threads;
    TranslatorOptions options;
    po::options_description desc("Options");
    desc.add_options()("model,m", po::value(&modelDir)->required(), "model directory written by nmt-train")(
        "input,i", po::value(&input)->required(), "source sentences, one a line")(
        "output-dir,o", po::value(&outputDir)->required(), "where the CSV (and SVG) files go")(
        "format", po::value(&format)->default_value("matrix"),
        "matrix: one CSV per sentence (target rows x source columns); long: one CSV, a row per weight")(
        "reference,r", po::value(&reference),
        "translations to force-decode (line-aligned with --input) instead of the model's own")(
        "svg", po::bool_switch(&svg), "also write a heatmap picture per sentence (OUT/000001.svg)")(
        "self-attention", po::bool_switch(&selfAttention),
        "transformer encoder: also write each layer's per-head self-attention (OUT/000001.self.layerL.headH.csv); "
        "transformer decoder: its self-attention too (OUT/000001.decoder-self.layerL.headH.csv)")(
        "all-heads", po::bool_switch(&allHeads),
        "transformer decoder: also write each layer's per-head cross-attention (OUT/000001.cross.layerL.headH.csv); "
        "the main matrix is the mean over the last layer's heads")(
        "weights", po::value(&weights)->default_value("best.pt"), "which weights of the directory: best.pt or last.pt")(
        "batch-size", po::value(&options.batchSize)->default_value(64), "sentences per greedy batch")(
        "device", po::value(&device)->default_value("auto"), "auto, cpu, cuda or cuda:N")(
        "threads", po::value(&threads)->default_value(0), "OpenBLAS threads for matrix work, LibTorch's own at 1 (0: OpenBLAS's default, all cores)");
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-attention",
                               "nmt-attention --model DIR --input FILE --output-dir OUT [--format matrix|long] "
                               "[--reference FILE] [--svg] [--self-attention] [--all-heads]",
                               argc, argv, desc, {}, vm))
      return 0;
    if (format != "matrix" && format != "long") throw po::error("--format must be matrix or long, not '" + format + "'");

    const auto dev = resolveDevice(device);
    reuseFreedMemory();
    configureThreads(threads);
    auto model = loadTranslationModel(modelDir, dev, weights);
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

    options.keepAttention = true;
    Translator translator(model, options, dev);
    AttentionWriter writer(outputDir, format, svg);
    c10::InferenceMode inference;
    // the model's own translations, batched; or forced decoding of the references
    const auto translations = reference.empty() ? translator.translate(sources) : translator.align(sources, references);
    std::size_t written = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const auto& t = translations[i];
      if (t.sourceIds.empty()) continue;  // an empty line has nothing to attend to
      AttentionRecord record;
      record.sentence = i + 1;
      record.source = sources[i];
      record.translation = t.texts[0];
      std::vector<std::string> targetPieces;
      if (reference.empty()) {
        targetPieces = translator.targetPieces(t.hypotheses[0]);
      } else {  // the reference's pieces as written (an unknown character shows itself, not <unk>)
        targetPieces = model.targetBpe->encodePieces(references[i]);
        targetPieces.push_back("</s>");
      }
      const HeadChoice heads{selfAttention, allHeads, selfAttention && decoderHeads};
      if (heads.encoderSelf || heads.cross || heads.decoderSelf)
        record.headMaps =
            attentionHeads(model.model, t.sourceIds, t.sourcePieces, t.hypotheses[0].tokens, targetPieces, heads, dev);
      record.attention = heatmapOf(t.attention, std::move(targetPieces), t.sourcePieces);
      writer.add(record);
      ++written;
    }
    writer.finish();
    fmt::print(stderr, "nmt-attention: wrote attention of {} sentences to {}\n", written, outputDir);
    return 0;
  });
}
