// nmt-translate: translates text with a trained model directory: files, pipes, or a prompt.
#include "LinePrompt.h"
#include "attention/Heatmap.h"
#include "attention/HeatmapOf.h"
#include "common/AppMain.h"
#include "common/SharedOptions.h"
#include "decode/Translator.h"
#include "kernels/InferenceLinear.h"
#include "util/AvailableLines.h"
#include "util/CudaRuntime.h"
#include "util/InputError.h"
#include "util/OutputFile.h"
#include "util/Stopwatch.h"
#include "util/TextLineReader.h"

#include <fmt/core.h>
#include <unistd.h>

#include <iostream>

namespace po = boost::program_options;
using namespace nmt;

namespace {

struct Output {
  OutputFile& file;
  std::ostream& out;
  bool scored;  // "LINE ||| translation ||| log-probability" lines (n-best or --scores)
  bool showAttention = false;
  std::size_t sentences = 0, pieces = 0;  // written so far (--stats)
};

// One line per input line, or (scored) n-best lines "LINE ||| translation ||| log-probability".
void write(Output& o, const Translation& t, std::size_t line) {
  ++o.sentences;
  if (!t.empty()) o.pieces += t.best().ids.size();
  if (!o.scored) {
    o.out << (t.empty() ? "" : t.best().text) << '\n';
  } else if (t.empty()) {
    o.out << line << " |||  ||| 0.0000\n";
  } else {
    for (const auto& h : t.hypotheses) o.out << fmt::format("{} ||| {} ||| {:.4f}\n", line, h.text, h.score);
  }
  if (o.showAttention && t.attention.defined())
    o.out << textHeatmap(heatmapOf(t.attention, t.best().pieces, t.sourcePieces));
}

void warnTruncated(const std::string& name, std::size_t line, const Translation& t, std::size_t max) {
  if (t.truncated)
    fmt::print(stderr, "nmt-translate: warning: {}:{}: {} pieces, truncated to the model's maximum of {}\n", name,
               line, t.inputPieces, max);
}

void translateFile(Translator& translator, Output& o, const std::string& path, std::size_t max) {
  const auto translations = translator.translate(readLines(path));
  for (std::size_t i = 0; i < translations.size(); ++i) {
    warnTruncated(path, i + 1, translations[i], max);
    write(o, translations[i], i + 1);
  }
  o.file.flush();
}

// A pipe: translate what has arrived (at most `most` lines at a time), answer at once, keep going
// until end of input.
void translateStream(Translator& translator, Output& o, std::size_t most, std::size_t max) {
  AvailableLines input(STDIN_FILENO);
  std::vector<std::string> lines;
  std::size_t done = 0;
  while (input.next(lines, most)) {
    for (std::size_t i = 0; i < lines.size(); ++i) checkInputLine(lines[i], "<stdin>", done + i + 1);
    const auto translations = translator.translate(lines);
    for (const auto& t : translations) {
      ++done;
      warnTruncated("<stdin>", done, t, max);
      write(o, t, done);
    }
    o.file.flush();
    lines.clear();
  }
}

// A person at a terminal: line editing and history (LinePrompt), :attn and :quit.
void interactive(Translator& translator, Output& o, std::size_t max) {
  app::LinePrompt prompt(app::LinePrompt::defaultHistoryPath());
  fmt::print(stderr, "Type a sentence and press Enter. :attn shows or hides attention, :quit leaves.\n");
  std::string line;
  for (std::size_t n = 1;; ++n) {
    o.file.flush();  // the last answer before the next prompt, also when it goes to a file (--output)
    if (!prompt.read("> ", line) || line == ":quit" || line == ":q") break;
    prompt.remember(line);
    if (line == ":attn") {
      o.showAttention = !o.showAttention;
      o.out << "attention " << (o.showAttention ? "on" : "off") << '\n';
      continue;
    }
    try {
      checkInputLine(line, "<stdin>", n);
      const auto t = translator.translate({line});
      warnTruncated("<stdin>", n, t[0], max);
      write(o, t[0], n);
    } catch (const InputError& e) {
      fmt::print(stderr, "nmt-translate: {}\n", e.what());
    }
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain("nmt-translate", [&] {
    app::setVersionDetails(runtimeDescription());
    std::string modelDir, input, output;
    RuntimeOptions runtimeOptions;
    TranslatorOptions options;
    bool scores = false, stats = false, verbose = false;
    OptionTable table("Options");
    table.addRequired("model,m", modelDir, "model directory written by nmt-train");
    table.addInvocation("input,i", input, "text to translate, one sentence a line (default: standard input)");
    table.addInvocation("output,o", output, "where translations go (default: standard output)");
    app::declareBeamOptions(table, options.decoding);
    table.addFlag("scores", scores, "print 'LINE ||| translation ||| log-probability' lines, as --nbest does");
    app::declareLengthOptions(table, options.decoding);
    app::ModelOptions modelOptions;
    app::declareModelOptions(table, modelOptions);
    app::declareBatchOptions(table, options);
    declareRuntimeOptions(table, runtimeOptions);
    table.addFlag("stats", stats, "at the end, write sentences/s and pieces/s (and peak GPU memory) to stderr");
    table.addFlag("verbose,v", verbose, "first write the device, threads and matrix kernels to stderr");
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-translate", "nmt-translate --model DIR [--input FILE] [--output FILE] [options]",
                               argc, argv, table.description(), {}, vm))
      return 0;
    app::checkBeamOptions(options.decoding);
    app::checkBatchOptions(options);

    const Runtime runtime = app::startProgram(runtimeOptions);
    if (verbose) {
      fmt::print(stderr, "nmt-translate: {}\nnmt-translate: {}; translation's fp32 products: {}\n", runtime.describe(),
                 runtime.kernelLine, describeFloatProducts());
      if (!runtime.kernelHint.empty()) fmt::print(stderr, "nmt-translate: {}\n", runtime.kernelHint);
    }
    auto model = app::loadModelFor(modelOptions, modelDir, runtime);
    OutputFile file(output.empty() ? "-" : output);
    Output out{file, file.stream(), options.decoding.nbest > 1 || scores};
    options.decoding.scores = out.scored;  // greedy search skips what only the scores need
    const bool prompt = input.empty() && ::isatty(STDIN_FILENO);
    options.decoding.keepAttention = prompt;  // the prompt can show it (:attn)
    Translator translator(model, options);
    const Stopwatch clock;
    if (!input.empty()) translateFile(translator, out, input, model.maxInputLength);
    else if (prompt) interactive(translator, out, model.maxInputLength);
    else translateStream(translator, out, options.batchSize * translator.options().parallelBatches, model.maxInputLength);
    file.commit();
    if (stats) {
      const double s = clock.seconds();
      const int64_t peak = peakGpuMemoryMiB(runtime.device);
      const std::size_t most = translator.mostBatchesAtOnce();
      const std::string atOnce = most == 1 ? "one batch at a time" : fmt::format("{} batches at once", most);
      fmt::print(stderr,
                 "nmt-translate: {} sentences, {} pieces in {:.2f} s: {:.1f} sentences/s, {:.0f} pieces/s; shortlist {}, "
                 "int8 {}, {}{}\n",
                 out.sentences, out.pieces, s, out.sentences / s, out.pieces / s, model.shortlist ? "on" : "off",
                 model.int8 ? "on" : "off", atOnce, peak >= 0 ? fmt::format(", peak GPU memory {} MiB", peak) : "");
    }
    return 0;
  });
}
