// nmt-average: averages a training run's last validated weights into a new model directory.
#include "common/AppMain.h"
#include "util/OptionTable.h"
#include "data/ModelDirectory.h"
#include "train/CheckpointAveraging.h"
#include "util/AtomicFile.h"
#include "util/CudaRuntime.h"
#include "util/FileSystem.h"
#include "util/InputError.h"
#include "util/Threads.h"

#include <fmt/core.h>

namespace po = boost::program_options;
using namespace nmt;

int main(int argc, char* argv[]) {
  app::runMain("nmt-average", [&] {
    app::setVersionDetails(runtimeDescription());
    std::string modelDir, outputDir;
    int last = 0;
    OptionTable table("Options");
    table.addRequired("model-dir,m", modelDir,
                      "a model directory trained with --keep-checkpoints N (its kept/ weights are averaged)");
    table.addRequired("output-dir,o", outputDir,
                      "the new model directory: its best.pt is the average, with the BPE models, config.ini and "
                      "shortlist.bin copied");
    table.add("last", last, "average only the last this many kept weights (0: all kept)");
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-average", "nmt-average --model-dir DIR --output-dir NEW [--last N]", argc, argv,
                               table.description(), {}, vm))
      return 0;
    if (last < 0) throw po::error("--last must not be negative");
    configureThreads(1);
    const ModelDirectory from(modelDir), to(outputDir);
    auto kept = from.keptCheckpoints();
    if (kept.empty())
      throw InputError("model directory " + from.root() + " has no kept weights in " + from.keptDirectory() +
                       " (train with nmt-train --keep-checkpoints N)");
    if (last > 0 && kept.size() > static_cast<std::size_t>(last)) kept.erase(kept.begin(), kept.end() - last);
    if (files::canonicalPath(from.root()) == files::canonicalPath(to.root()))
      throw InputError("--output-dir must be another directory than --model-dir (its best.pt would be replaced)");
    if (files::exists(to.best()))
      throw InputError(to.best() + " already exists; choose another --output-dir");

    auto average = averageModels(kept);
    files::createDirectories(to.root());
    const auto sources = from.translationFiles(), targets = to.translationFiles();
    for (std::size_t i = 0; i < sources.size(); ++i)
      if (files::exists(sources[i])) copyFileAtomically(sources[i], targets[i]);
    saveModel(average, to.best());
    fmt::print(stderr, "nmt-average: averaged {} weights ({} ... {}) into {}\n", kept.size(), kept.front(),
               kept.back(), to.best());
    return 0;
  });
}
