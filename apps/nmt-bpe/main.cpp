// nmt-bpe: train a SentencePiece BPE model, and encode or decode text with it, line by line.
#include "common/AppMain.h"
#include "util/OptionTable.h"
#include "tokenization/BpeModel.h"
#include "tokenization/BpeTrainer.h"
#include "util/InputError.h"
#include "util/OutputFile.h"
#include "util/TextLineReader.h"

#include <fmt/core.h>


#include <chrono>
#include <iostream>
#include <string>
#include <vector>

namespace po = boost::program_options;
using namespace nmt;

namespace {

constexpr const char* kProgram = "nmt-bpe";
constexpr const char* kUsage =
    "nmt-bpe train --input FILE [FILE...] --model-prefix PREFIX --vocab-size N\n"
    "       nmt-bpe encode --model PREFIX.model [--ids]   (stdin -> stdout)\n"
    "       nmt-bpe decode --model PREFIX.model [--ids]   (stdin -> stdout)";

std::vector<std::string> splitSpaces(const std::string& line) {
  std::vector<std::string> out;
  std::string current;
  for (char c : line) {
    if (c == ' ') {
      if (!current.empty()) out.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

int train(int argc, const char* const argv[]) {
  BpeTrainOptions opts;  // its defaults are the options'
  bool verbose = false;
  OptionTable table("Training options");
  table.addRequired("input", opts.inputs, "text files to learn from, one sentence a line");
  table.addRequired("model-prefix", opts.modelPrefix, "write PREFIX.model and PREFIX.vocab");
  table.add("vocab-size", opts.vocabSize, "pieces in the vocabulary, special ids included");
  table.add("character-coverage", opts.characterCoverage, "share of characters to cover; the rarest rest become <unk>");
  table.add("input-sentence-limit", opts.inputSentenceLimit, "train on a seeded sample of this many lines (0: all lines)");
  table.add("seed", opts.seed, "seed of the sentence sample");
  table.add("threads", opts.threads, "SentencePiece trainer threads");
  table.addFlag("verbose", verbose, "show SentencePiece's own training log");
  po::variables_map vm;
  if (!app::parseCommandLine(kProgram, kUsage, argc, argv, table.description(), {}, vm)) return app::kExitOk;
  opts.quiet = !verbose;
  const auto start = std::chrono::steady_clock::now();
  trainBpeModel(opts);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(stderr, "{}: wrote {}.model and {}.vocab ({} pieces) in {:.1f} s\n", kProgram, opts.modelPrefix,
             opts.modelPrefix, opts.vocabSize, seconds);
  return app::kExitOk;
}

int encodeOrDecode(bool encode, int argc, const char* const argv[]) {
  std::string modelPath;
  bool ids = false;
  OptionTable table(encode ? "Encoding options" : "Decoding options");
  table.addRequired("model", modelPath, "the BPE model (PREFIX.model)");
  table.addFlag("ids", ids, encode ? "print ids instead of pieces" : "read ids instead of pieces");
  po::variables_map vm;
  if (!app::parseCommandLine(kProgram, kUsage, argc, argv, table.description(), {}, vm)) return app::kExitOk;
  const BpeModel model(modelPath);

  TextLineReader reader(std::cin, "<stdin>");
  OutputFile output("-");
  std::string line;
  while (reader.next(line)) {
    std::string out;
    if (encode && ids) {
      for (int id : model.encodeIds(line)) out += (out.empty() ? "" : " ") + std::to_string(id);
    } else if (encode) {
      for (const auto& p : model.encodePieces(line)) out += (out.empty() ? "" : " ") + p;
    } else if (ids) {
      std::vector<int> values;
      for (const auto& token : splitSpaces(line)) {
        std::size_t used = 0;
        int id = -1;
        try {
          id = std::stoi(token, &used);
        } catch (const std::exception&) {
        }
        if (used != token.size() || id < 0 || id >= model.vocabSize())
          throw InputError(fmt::format("<stdin>:{}: '{}' is not a piece id of {} (0..{})", reader.lineNumber(), token,
                                       modelPath, model.vocabSize() - 1));
        values.push_back(id);
      }
      out = model.decodeIds(values);
    } else {
      out = model.decodePieces(splitSpaces(line));
    }
    out.push_back('\n');
    output.stream() << out;
    output.flush();  // so that another program can drive us line by line
  }
  output.commit();
  return app::kExitOk;
}

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain(kProgram, [&] {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "train") return train(argc - 1, argv + 1);
    if (command == "encode") return encodeOrDecode(true, argc - 1, argv + 1);
    if (command == "decode") return encodeOrDecode(false, argc - 1, argv + 1);
    if (command == "--version") {
      fmt::print("{}\n", app::versionLine(kProgram));
      return int(app::kExitOk);
    }
    if (command == "--help" || command == "-h") {
      fmt::print("Usage: {}\n\nCommands:\n  train    learn a BPE model from text files\n"
                 "  encode   text to pieces (or ids) line by line\n  decode   pieces (or ids) back to text\n\n"
                 "'{} COMMAND --help' lists a command's options.\n",
                 kUsage, kProgram);
      return int(app::kExitOk);
    }
    fmt::print(stderr, "{}: {} (see {} --help)\n", kProgram,
               command.empty() ? std::string("missing command: train, encode or decode")
                               : fmt::format("unknown command '{}': expected train, encode or decode", command),
               kProgram);
    return int(app::kExitUsage);
  });
}
