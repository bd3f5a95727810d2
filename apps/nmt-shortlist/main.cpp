// nmt-shortlist: learns a model directory's lexical shortlist (shortlist.bin) again, from its run's prepared corpus.
#include "common/AppMain.h"
#include "util/OptionTable.h"
#include "data/EncodedCorpus.h"
#include "data/ModelDirectory.h"
#include "data/ParallelCorpus.h"
#include "data/PreparedCorpus.h"
#include "data/Shortlist.h"
#include "tokenization/BpeModel.h"
#include "util/FileSystem.h"
#include "util/InputError.h"

#include <fmt/core.h>

namespace po = boost::program_options;
using namespace nmt;

namespace {

// An option's value, else the model directory's config.ini's (the training run's data).
std::string orConfigured(const std::string& given, const ModelDirectory& dir, const std::string& key) {
  return given.empty() ? dir.configValue(key) : given;
}

ParallelCorpus readPairs(const std::string& what, const std::string& source, const std::string& target) {
  if (source.empty() || target.empty())
    throw po::error("no " + what + " data: give --" + what + "-src and --" + what +
                    "-tgt (the model directory's config.ini names none)");
  return ParallelCorpus::fromFiles(source, target);
}

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain("nmt-shortlist", [&] {
    std::string modelDir, validSource, validTarget;
    ShortlistOptions options;
    OptionTable table("Options");
    table.addRequired("model,m", modelDir, "model directory written by nmt-train (its BPE models are used)");
    table.addInvocation("valid-src", validSource, "validation source sentences, for the coverage (default: the run's)");
    table.addInvocation("valid-tgt", validTarget, "validation target sentences (default: the run's)");
    table.add("per-source", options.perSource, "target pieces kept for each source piece, most likely first");
    table.add("frequent", options.frequent, "most frequent target pieces kept for every sentence");
    table.add("iterations", options.iterations, "IBM Model 1 EM iterations");
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-shortlist", "nmt-shortlist --model DIR [options]", argc,
                               argv, table.description(), {}, vm))
      return 0;
    if (options.perSource < 1) throw po::error("--per-source must be at least 1");
    if (options.frequent < 0) throw po::error("--frequent must be 0 or more");
    if (options.iterations < 1) throw po::error("--iterations must be at least 1");

    const ModelDirectory dir(modelDir);
    dir.requireExisting();
    const BpeModel sourceBpe(dir.sourceBpeModel()), targetBpe(dir.targetBpeModel());
    if (!files::exists(dir.preparedTrain()))
      throw InputError("model directory " + dir.root() + " has no prepared training corpus " + dir.preparedTrain() +
                       " (nmt-train makes it)");
    const auto train = PreparedCorpus::open(dir.preparedTrain());
    const auto valid = readPairs("valid", orConfigured(validSource, dir, "valid-src"), orConfigured(validTarget, dir, "valid-tgt"));
    // the validation set is small: one thread encodes it (--threads elsewhere means matrix work's threads)
    const auto validPairs = encodeCorpus(valid, sourceBpe, targetBpe, 0, 1);
    const std::string seed = dir.configValue("seed");  // the run's, as nmt-train sampled with it
    fmt::print(stderr, "nmt-shortlist: {}\n",
               makeShortlist(dir, train, seed.empty() ? 1 : std::stoull(seed), validPairs.pairs, sourceBpe.vocabSize(),
                             targetBpe.vocabSize(), options));
    return 0;
  });
}
