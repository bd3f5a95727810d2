// nmt-translate: translates text with a trained model directory: files, pipes, or a prompt.
#include "common/AppMain.h"
#include "attention/HeatmapOf.h"
#include "decode/Translator.h"
#include "util/AvailableLines.h"
#include "attention/Heatmap.h"
#include "util/BlasKernels.h"
#include "util/CudaRuntime.h"
#include "util/Device.h"
#include "util/HeapReuse.h"
#include "util/InputError.h"
#include "util/Precision.h"
#include "util/Stopwatch.h"
#include "util/TextLineReader.h"
#include "util/Threads.h"

#include <fmt/core.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

namespace po = boost::program_options;
using namespace nmt;

namespace {

struct Output {
  std::ostream& out;
  bool scored;  // "LINE ||| translation ||| log-probability" lines (n-best or --scores)
  bool showAttention = false;
  std::size_t sentences = 0, pieces = 0;  // written so far (--stats)
};

// One line per input line, or (scored) n-best lines "LINE ||| translation ||| log-probability".
void write(const Translator& translator, Output& o, const Translation& t, std::size_t line) {
  ++o.sentences;
  if (!t.hypotheses.empty()) o.pieces += t.hypotheses[0].tokens.size();
  if (!o.scored) {
    o.out << (t.texts.empty() ? "" : t.texts[0]) << '\n';
  } else if (t.hypotheses.empty()) {
    o.out << line << " |||  ||| 0.0000\n";
  } else {
    for (std::size_t k = 0; k < t.hypotheses.size(); ++k)
      o.out << fmt::format("{} ||| {} ||| {:.4f}\n", line, t.texts[k], t.hypotheses[k].score);
  }
  if (o.showAttention && t.attention.defined())
    o.out << textHeatmap(heatmapOf(t.attention, translator.targetPieces(t.hypotheses[0]), t.sourcePieces));
}

void warnTruncated(const std::string& name, std::size_t line, const Translation& t, std::size_t max) {
  if (t.truncated)
    fmt::print(stderr, "nmt-translate: warning: {}:{}: {} pieces, truncated to the model's maximum of {}\n", name,
               line, t.inputPieces, max);
}

void translateFile(Translator& translator, Output& o, const std::string& path, std::size_t max) {
  TextLineReader reader(path);
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(line)) lines.push_back(line);
  const auto translations = translator.translate(lines);
  for (std::size_t i = 0; i < translations.size(); ++i) {
    warnTruncated(path, i + 1, translations[i], max);
    write(translator, o, translations[i], i + 1);
  }
  o.out.flush();
}

// A pipe: translate what has arrived, answer at once, keep going until end of input.
void translateStream(Translator& translator, Output& o, std::size_t batchSize, std::size_t max) {
  AvailableLines input(STDIN_FILENO);
  std::vector<std::string> lines;
  std::size_t done = 0;
  while (input.next(lines, batchSize)) {
    for (std::size_t i = 0; i < lines.size(); ++i) checkInputLine(lines[i], "<stdin>", done + i + 1);
    const auto translations = translator.translate(lines);
    for (const auto& t : translations) {
      ++done;
      warnTruncated("<stdin>", done, t, max);
      write(translator, o, t, done);
    }
    o.out.flush();
    lines.clear();
  }
}

void interactive(Translator& translator, Output& o, std::size_t max) {
  fmt::print(stderr, "Type a sentence and press Enter. :attn shows or hides attention, :quit leaves.\n");
  std::string line;
  for (std::size_t n = 1;; ++n) {
    o.out << "> " << std::flush;
    if (!std::getline(std::cin, line)) break;
    if (line == ":quit" || line == ":q") break;
    if (line == ":attn") {
      o.showAttention = !o.showAttention;
      o.out << "attention " << (o.showAttention ? "on" : "off") << '\n';
      continue;
    }
    try {
      checkInputLine(line, "<stdin>", n);
      const auto t = translator.translate({line});
      warnTruncated("<stdin>", n, t[0], max);
      write(translator, o, t[0], n);
    } catch (const InputError& e) {
      fmt::print(stderr, "nmt-translate: {}\n", e.what());
    }
  }
  o.out << '\n';
}

}  // namespace

int main(int argc, char* argv[]) {
  return app::runMain("nmt-translate", [&] {
    app::setVersionDetails(runtimeDescription());
    std::string modelDir, input, output, device, weights, precisionText;
    TranslatorOptions options;
    int threads;
    po::options_description desc("Options");
    desc.add_options()("model,m", po::value(&modelDir)->required(), "model directory written by nmt-train")(
        "input,i", po::value(&input), "text to translate, one sentence a line (default: standard input)")(
        "output,o", po::value(&output), "where translations go (default: standard output)")(
        "beam,k", po::value(&options.beam.beamSize)->default_value(1), "beam size (1: greedy search, batched)")(
        "nbest,n", po::value(&options.beam.nbest)->default_value(1),
        "print the N best as 'LINE ||| translation ||| log-probability' (needs --beam >= N)")(
        "scores", po::bool_switch(), "print 'LINE ||| translation ||| log-probability' lines, as --nbest does")(
        "length-penalty", po::value(&options.beam.lengthPenalty)->default_value(1.0, "1.0"),
        "beam search: rank by log-probability / ((5 + length) / 6)^alpha (0: raw log-probability)")(
        "batch-size", po::value(&options.batchSize)->default_value(64), "sentences per batch, sorted by length (beam search: K rows each)")(
        "max-ratio", po::value(&options.limits.ratio)->default_value(2.0, "2.0"),
        "a translation has at most max-ratio x source pieces + 10")(
        "weights", po::value(&weights)->default_value("best.pt"), "which weights of the directory: best.pt or last.pt")(
        "device", po::value(&device)->default_value("auto"), "auto, cpu, cuda or cuda:N")(
        "threads", po::value(&threads)->default_value(0), "OpenBLAS threads for matrix work, LibTorch's own at 1 (0: OpenBLAS's default, all cores)")(
        "precision", po::value(&precisionText)->default_value("fp32"),
        "fp32, or on CUDA bf16 or fp16: matrix work in 16 bits (autocast)")(
        "stats", po::bool_switch(), "at the end, write sentences/s and pieces/s (and peak GPU memory) to stderr")(
        "verbose,v", po::bool_switch(), "first write the device, threads and matrix kernels to stderr");
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-translate", "nmt-translate --model DIR [--input FILE] [--output FILE] [options]",
                               argc, argv, desc, {}, vm))
      return 0;
    if (options.beam.beamSize < 1) throw po::error("--beam must be at least 1");
    if (options.beam.nbest < 1) throw po::error("--nbest must be at least 1");
    if (options.beam.nbest > options.beam.beamSize)
      throw po::error(fmt::format("--nbest {} needs --beam {} or more", options.beam.nbest, options.beam.nbest));
    if (options.batchSize < 1) throw po::error("--batch-size must be at least 1");
    const Precision precision = app::optionValue([&] { return parsePrecision(precisionText); });

    const auto dev = resolveDevice(device);
    checkPrecisionDevice(precision, dev);
    reuseFreedMemory();
    const std::string threadInfo = configureThreads(threads);
    if (vm["verbose"].as<bool>()) {
      const MatrixKernels kernels = currentMatrixKernels();
      fmt::print(stderr, "nmt-translate: device {}, precision {}; {}\nnmt-translate: {}\n", dev.str(),
                 precisionName(precision), threadInfo, describeMatrixKernels(kernels));
      if (const auto hint = kernelHint(kernels, detectCpuFeatures()); !hint.empty())
        fmt::print(stderr, "nmt-translate: {}\n", hint);
    }
    auto model = loadTranslationModel(modelDir, dev, weights);
    std::ofstream file;
    if (!output.empty()) {
      file.open(output);
      if (!file) throw InputError("cannot write " + output);
    }
    Output out{output.empty() ? std::cout : file, options.beam.nbest > 1 || vm["scores"].as<bool>()};
    const bool prompt = input.empty() && ::isatty(STDIN_FILENO);
    options.keepAttention = prompt;  // the prompt can show it (:attn)
    Translator translator(model, options, dev);
    const AutocastScope autocast(dev, precision);
    const Stopwatch clock;
    if (!input.empty()) translateFile(translator, out, input, model.maxInputLength);
    else if (prompt) interactive(translator, out, model.maxInputLength);
    else translateStream(translator, out, options.batchSize, model.maxInputLength);
    if (vm["stats"].as<bool>()) {
      const double s = clock.seconds();
      const int64_t peak = peakGpuMemoryMiB(dev);
      fmt::print(stderr, "nmt-translate: {} sentences, {} pieces in {:.2f} s: {:.1f} sentences/s, {:.0f} pieces/s{}\n",
                 out.sentences, out.pieces, s, out.sentences / s, out.pieces / s,
                 peak >= 0 ? fmt::format(", peak GPU memory {} MiB", peak) : "");
    }
    return 0;
  });
}
