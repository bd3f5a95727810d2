// nmt-attention: exports what a trained model attends to, as CSV (and SVG) files.
#include "common/AppMain.h"
#include "decode/ForcedDecoding.h"
#include "decode/Translator.h"
#include "io/AttentionWriter.h"
#include "util/Device.h"
#include "util/InputError.h"
#include "util/TextLineReader.h"
#include "util/HeapReuse.h"
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

Heatmap toHeatmap(const at::Tensor& weights, std::vector<std::string> rows, std::vector<std::string> columns) {
  Heatmap map{std::move(rows), std::move(columns), {}};
  const auto w = weights.contiguous();
  const auto a = w.accessor<float, 2>();
  for (int64_t r = 0; r < w.size(0); ++r) {
    std::vector<float> row(w.size(1));
    for (int64_t c = 0; c < w.size(1); ++c) row[c] = a[r][c];
    map.weights.push_back(std::move(row));
  }
  return map;
}

// Per layer and head self-attention of the transformer encoder over one source sentence.
std::vector<std::pair<std::string, Heatmap>> selfAttentionOf(TranslationModel& model, const std::vector<int>& ids,
                                                             const std::vector<std::string>& pieces,
                                                             const c10::Device& device) {
  auto encoder = model.model->transformerEncoder();
  encoder->keepAttention(true);
  const std::vector<EncodedPair> pair{{ids, {}, 0}};
  const Batch batch = makeBatch(pair, {0}, device);
  model.model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  std::vector<std::pair<std::string, Heatmap>> out;
  const auto& layers = encoder->selfAttention();
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const auto perHead = layers[l][0].to(torch::kCPU, torch::kFloat32);  // [H, S, S]
    for (int64_t h = 0; h < perHead.size(0); ++h)
      out.emplace_back(fmt::format("layer{}.head{}", l + 1, h + 1), toHeatmap(perHead[h], pieces, pieces));
  }
  encoder->keepAttention(false);
  return out;
}

}  // namespace

int main(int argc, char* argv[]) {
  return app::runMain("nmt-attention", [&] {
    std::string modelDir, input, outputDir, format, reference, device, weights;
    bool svg = false, selfAttention = false;
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
        "transformer encoder: also write each layer's per-head self-attention (OUT/000001.self.layerL.headH.csv)")(
        "weights", po::value(&weights)->default_value("best.pt"), "which weights of the directory: best.pt or last.pt")(
        "batch-size", po::value(&options.batchSize)->default_value(64), "sentences per greedy batch")(
        "device", po::value(&device)->default_value("auto"), "auto, cpu, cuda or cuda:N")(
        "threads", po::value(&threads)->default_value(0), "CPU threads for matrix work (0: the libraries' defaults)");
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-attention",
                               "nmt-attention --model DIR --input FILE --output-dir OUT [--format matrix|long] "
                               "[--reference FILE] [--svg] [--self-attention]",
                               argc, argv, desc, {}, vm))
      return 0;
    if (format != "matrix" && format != "long") throw po::error("--format must be matrix or long, not '" + format + "'");

    const auto dev = resolveDevice(device);
    reuseFreedMemory();
    configureThreads(threads);
    auto model = loadTranslationModel(modelDir, dev, weights);
    if (selfAttention && model.model->config().encoder != "transformer")
      throw InputError("--self-attention needs a model with the transformer encoder; " + modelDir + " has the " +
                       model.model->config().encoder + " encoder");
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
    // the model's own translations, batched (forced decoding needs no search)
    const auto translations = reference.empty() ? translator.translate(sources) : std::vector<Translation>();
    std::size_t written = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      auto sourceIds = model.sourceBpe->encodeIds(sources[i]);
      if (sourceIds.empty()) continue;  // an empty line has nothing to attend to
      if (model.maxInputLength > 0 && sourceIds.size() > model.maxInputLength) sourceIds.resize(model.maxInputLength);
      auto sourcePieces = model.sourceBpe->encodePieces(sources[i]);  // as written: no <unk>
      sourcePieces.resize(sourceIds.size());
      sourcePieces.push_back("</s>");
      AttentionRecord record;
      record.sentence = i + 1;
      record.source = sources[i];
      if (reference.empty()) {
        const auto& t = translations[i];
        record.translation = t.texts[0];
        record.attention = toHeatmap(t.attention, translator.targetPieces(t.hypotheses[0]), sourcePieces);
      } else {
        const auto targetIds = model.targetBpe->encodeIds(references[i]);
        auto targetPieces = model.targetBpe->encodePieces(references[i]);
        targetPieces.push_back("</s>");
        record.translation = references[i];
        record.attention = toHeatmap(forcedDecode(model.model, sourceIds, targetIds, dev).attention, targetPieces,
                                     sourcePieces);
      }
      if (selfAttention) record.selfAttention = selfAttentionOf(model, sourceIds, sourcePieces, dev);
      writer.add(record);
      ++written;
    }
    writer.finish();
    fmt::print(stderr, "nmt-attention: wrote attention of {} sentences to {}\n", written, outputDir);
    return 0;
  });
}
