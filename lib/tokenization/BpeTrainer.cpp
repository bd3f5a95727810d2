#include "BpeTrainer.h"

#include "BpeError.h"
#include "BpeModel.h"
#include "SpecialIds.h"
#include "SpmBridgeLibrary.h"
#include "util/FileSystem.h"
#include "util/AtomicFile.h"

#include <sys/statvfs.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

namespace nmt {
namespace {

// Why SentencePiece's file came out incomplete: it does not say, but a full disk is the usual cause.
std::string incompleteReason(const std::string& path) {
  const std::string dir = files::parentDirectory(path);
  struct statvfs fs {};
  if (::statvfs(dir.empty() ? "." : dir.c_str(), &fs) == 0 && fs.f_bavail * fs.f_frsize < 1024 * 1024)
    return std::strerror(ENOSPC);
  return "SentencePiece wrote an incomplete file";
}

}  // namespace

void trainBpeModel(const BpeTrainOptions& options) {
  if (options.inputs.empty()) throw BpeError("BPE training needs at least one input file");
  if (options.modelPrefix.empty()) throw BpeError("BPE training needs a model prefix");
  if (options.vocabSize <= 4) throw BpeError("BPE vocabulary size must be above 4 (the special ids)");
  if (options.characterCoverage <= 0.0 || options.characterCoverage > 1.0)
    throw BpeError("character coverage must be in (0, 1]");

  // SentencePiece writes PREFIX.model and PREFIX.vocab itself: it writes them as PREFIX.tmp.*,
  // the model is loaded back as a check, and both are moved into place, the model last (a whole
  // PREFIX.model is what later runs take as a finished BPE).
  const std::string tmpPrefix = options.modelPrefix + ".tmp";
  std::string input;
  for (const auto& file : options.inputs) {
    // SentencePiece takes its inputs as one comma-separated list.
    if (file.find(',') != std::string::npos) throw BpeError("BPE input file names cannot contain commas: " + file);
    if (!std::ifstream(file).good()) throw BpeError("cannot open BPE training input " + file);
    input += (input.empty() ? "" : ",") + file;
  }

  const std::map<std::string, std::string> args = {
      {"input", input},
      {"model_prefix", tmpPrefix},
      {"model_type", "bpe"},
      {"vocab_size", std::to_string(options.vocabSize)},
      {"character_coverage", std::to_string(options.characterCoverage)},
      {"input_sentence_size", std::to_string(options.inputSentenceLimit)},
      {"shuffle_input_sentence", "true"},
      {"num_threads", std::to_string(options.threads)},
      {"pad_id", std::to_string(SpecialIds::kPad)},
      {"unk_id", std::to_string(SpecialIds::kUnk)},
      {"bos_id", std::to_string(SpecialIds::kBos)},
      {"eos_id", std::to_string(SpecialIds::kEos)},
      {"pad_piece", "<pad>"},
      {"unk_piece", "<unk>"},
      {"bos_piece", "<s>"},
      {"eos_piece", "</s>"},
      {"minloglevel", options.quiet ? "2" : "0"},
  };
  std::vector<const char*> keys, values;
  for (const auto& [k, v] : args) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  const auto& bridge = SpmBridgeLibrary::get();
  char* error = nullptr;
  const auto removeTmp = [&] {
    ::unlink((tmpPrefix + ".model").c_str());
    ::unlink((tmpPrefix + ".vocab").c_str());
  };
  if (bridge.train(keys.data(), values.data(), keys.size(), options.seed, &error) != 0) {
    std::string message = error ? error : "unknown error";
    bridge.free(error);
    removeTmp();
    throw BpeError("BPE training failed: " + message);
  }
  try {
    try {
      BpeModel written(tmpPrefix + ".model");
    } catch (const BpeError&) {  // SentencePiece's file is not whole
      throw WriteError("cannot write " + options.modelPrefix + ".model: " + incompleteReason(options.modelPrefix));
    }
    // Into place as every output is written (a link's file replaced, a device written in place).
    for (const char* suffix : {".vocab", ".model"}) moveFileAtomically(tmpPrefix + suffix, options.modelPrefix + suffix);
  } catch (...) {
    removeTmp();
    throw;
  }
  removeTmp();
}

}  // namespace nmt
