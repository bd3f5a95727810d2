// nmt-translate: translates text with a trained model directory: files, pipes, or a prompt.
#include "PromptSession.h"
#include "TranslationOutput.h"
#include "common/AppMain.h"
#include "common/SharedOptions.h"
#include "decode/OptionHelp.h"
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

// What to do with each line: translate it (after its prefix, when given), or list its alternatives.
struct LineWork {
  std::vector<std::string> prefixes;  // --prefixes' lines; none: no prefixes
  std::string prefixesName;
  std::size_t alternatives = 0;       // --alternatives

  // The prefixes of input lines first .. first + count - 1 (none when not given); InputError when the
  // file has fewer lines than the input.
  std::vector<std::string> prefixesOf(std::size_t first, std::size_t count) const {
    if (prefixes.empty()) return {};
    if (first - 1 + count > prefixes.size())
      throw InputError(fmt::format("{}: {} lines, fewer than the input's: give one prefix a line (an empty one: none)",
                                   prefixesName, prefixes.size()));
    return {prefixes.begin() + static_cast<std::ptrdiff_t>(first - 1),
            prefixes.begin() + static_cast<std::ptrdiff_t>(first - 1 + count)};
  }
};

// Lines first, first + 1, ... translated and written (or their alternatives listed).
void translateLines(Translator& translator, app::TranslationOutput& o, const LineWork& work,
                    const std::vector<std::string>& lines, std::size_t first, const std::string& name, std::size_t max) {
  const auto prefixes = work.prefixesOf(first, lines.size());
  if (work.alternatives > 0) {
    for (std::size_t i = 0; i < lines.size(); ++i)
      o.writeAlternatives(translator.alternatives(lines[i], prefixes.empty() ? "" : prefixes[i], work.alternatives),
                          first + i);
    return;
  }
  const auto translations = translator.translate(lines, prefixes, work.prefixesName);
  for (std::size_t i = 0; i < translations.size(); ++i) {
    app::warnAbout(name, first + i, translations[i], max);
    o.write(translations[i], first + i);
  }
}

void translateFile(Translator& translator, app::TranslationOutput& o, const LineWork& work, const std::string& path,
                   std::size_t max) {
  const auto lines = readLines(path);
  if (!work.prefixes.empty() && work.prefixes.size() != lines.size())
    throw InputError(fmt::format("{}: {} lines for the {} of {}: give one prefix a line (an empty one: none)",
                                 work.prefixesName, work.prefixes.size(), lines.size(), path));
  translateLines(translator, o, work, lines, 1, path, max);
  o.file.flush();
}

// A pipe: translate what has arrived (at most `most` lines at a time), answer at once, keep going
// until end of input.
void translateStream(Translator& translator, app::TranslationOutput& o, const LineWork& work, std::size_t most,
                     std::size_t max) {
  AvailableLines input(STDIN_FILENO);
  std::vector<std::string> lines;
  std::size_t done = 0;
  while (input.next(lines, most)) {
    for (std::size_t i = 0; i < lines.size(); ++i) checkInputLine(lines[i], "<stdin>", done + i + 1);
    translateLines(translator, o, work, lines, done + 1, "<stdin>", max);
    done += lines.size();
    o.file.flush();
    lines.clear();
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
    std::string prefixes, glossary;
    LineWork work;
    OptionTable table("Options");
    table.addRequired("model,m", modelDir, "model directory written by nmt-train");
    table.addInvocation("input,i", input, "text to translate, one sentence a line (default: standard input)");
    table.addInvocation("output,o", output, "where translations go (default: standard output)");
    app::declareBeamOptions(table, options.decoding);
    table.addFlag("scores", scores, "print 'LINE ||| translation ||| log-probability' lines, as --nbest does");
    app::declareLengthOptions(table, options.decoding);
    table.addInvocation("prefixes", prefixes,
                        app::programSpelling(std::string("a file with one prefix a line for the input's lines (an empty line: "
                                                    "none): ") + help::kPrefix).c_str());
    table.add("alternatives", work.alternatives,
              ("list each line's alternatives instead of translating it: " + std::string(help::kAlternatives) +
               ", as 'LINE ||| piece ||| log-probability ||| translation' lines (0: off)")
                  .c_str());
    table.addInvocation("glossary", glossary, app::programSpelling(help::kGlossary).c_str());
    app::declareSamplingOptions(table, options.decoding);
    app::declareAlignmentOptions(table, options.alignment);
    app::declareTextOptions(table, options.text);
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
    app::checkAlignment(options.alignment);
    app::optionValue([&] {
      if (work.alternatives > kMaxAlternatives)
        throw OptionError(fmt::format("`alternatives` must be between 0 (off) and {}, not {}", kMaxAlternatives,
                                      work.alternatives));
    });
    if (!prefixes.empty()) {
      work.prefixes = readLines(prefixes);
      work.prefixesName = prefixes;
    }
    if (!glossary.empty()) {
      options.glossary = std::make_shared<const Glossary>(Glossary::read(glossary));
      app::optionValue([&] { checkTranslatorOptions(options, c10::Device(c10::kCPU)); });
    }

    const Runtime runtime = app::startProgram(runtimeOptions, ModelUse::kTranslation);
    if (verbose) {
      fmt::print(stderr, "nmt-translate: {}\nnmt-translate: {}; translation's fp32 products: {}\n", runtime.describe(),
                 runtime.kernelLine, describeFloatProducts());
      if (!runtime.kernelHint.empty()) fmt::print(stderr, "nmt-translate: {}\n", runtime.kernelHint);
    }
    auto model = app::loadModelFor(modelOptions, modelDir, runtime);
    OutputFile file(output.empty() ? "-" : output);
    app::TranslationOutput out{file, file.stream(), options.decoding.nbest > 1 || scores, options.alignment.words};
    options.decoding.scores = out.scored;  // greedy search skips what only the scores need
    const bool prompt = input.empty() && ::isatty(STDIN_FILENO);
    options.decoding.keepAttention = prompt;  // the prompt can show it (:attn)
    Translator translator(model, options);
    const Stopwatch clock;
    if (!input.empty()) translateFile(translator, out, work, input, model.maxInputLength);
    else if (prompt) app::runPrompt(translator, out, model.maxInputLength);
    else translateStream(translator, out, work, options.batchSize * translator.options().parallelBatches, model.maxInputLength);
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
