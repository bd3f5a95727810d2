// nmt-train: trains a translation model on parallel text into a self-contained model directory.
#include "LocalWorkers.h"
#include "common/AppMain.h"
#include "common/IdleThreadsRestart.h"
#include "train/TrainingOptions.h"
#include "util/OptionTable.h"
#include "common/SharedOptions.h"
#include "parallel/DataParallelPeers.h"
#include "parallel/WorkerEnvironment.h"
#include "data/ModelDirectory.h"
#include "util/Progress.h"
#include "train/TrainingRun.h"
#include "util/CudaRuntime.h"
#include "util/Device.h"
#include "util/FileSystem.h"
#include "util/StopSignal.h"

#include <fmt/core.h>


namespace po = boost::program_options;
using namespace nmt;

namespace {

const char* const kUsage =
    "nmt-train --config FILE --model-dir DIR [options]\n"
    "       nmt-train --model-dir DIR --resume [options]\n"
    "Options on the command line override those in --config; with --resume, both override the\n"
    "model directory's config.ini.";

}  // namespace

int main(int argc, char* argv[]) {
  app::runMain("nmt-train", [&] {
    app::setVersionDetails(runtimeDescription());
    TrainingInvocation invocation;
    TrainingRequest& request = invocation.request;
    OptionTable table("Options");
    declareTrainingOptions(table, invocation);
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-train", kUsage, argc, argv, table.description(), {}, vm)) return 0;
    app::optionValue([&] { settleTrainingOptions(table, vm, invocation); });
    const auto worker = parallel::readWorkerEnvironment(parallel::processEnvironment());
    if (invocation.processes > 1) {
      if (worker.distributed())
        throw po::error("--processes starts its own workers; WORLD_SIZE says this is one already");
      auto arguments = app::withoutProcessesOption(argc, argv);
      if (vm["threads"].defaulted()) arguments.insert(arguments.end(), {"--threads", "1"});
      return app::runLocalWorkers(invocation.processes, arguments);
    }

    if (!worker.distributed())  // measured for one process (docs/performance.md)
      app::restartWithSleepingIdleThreads("nmt-train", argv, request.runtime, invocation.config);
    StopSignal::install();
    if (worker.distributed())
      request.runtime.device = parallel::workerDeviceChoice(request.runtime.device, worker.localRank, cudaDeviceCount());
    const Runtime runtime = app::startProgram(request.runtime, ModelUse::kTraining);
    std::unique_ptr<parallel::DataParallelPeers> peers;
    if (worker.distributed())
      peers = std::make_unique<parallel::DataParallelPeers>(parallel::WorkerGroup::connect(
          worker, std::chrono::milliseconds(static_cast<int64_t>(invocation.timeoutSeconds * 1000)), runtime.device));
    Progress progress(worker.rank == 0 ? stderr : nullptr);  // rank 0 speaks for all
    const auto outcome = runTraining(request, runtime, progress, peers.get());
    switch (outcome.reason) {
      case StopReason::kSignal:
        progress.message(fmt::format("nmt-train: {}; continue with: nmt-train --model-dir {} --resume",
                                     app::programSpelling(outcome.message), request.modelDir));
        return 128 + outcome.signal;
      case StopReason::kNonFiniteLoss:
        progress.message("nmt-train: error: " + app::programSpelling(outcome.message));
        return int{app::kExitFailure};
      default:
        progress.message("nmt-train: done: " + app::programSpelling(outcome.message));
        return int{app::kExitOk};
    }
  });
}
