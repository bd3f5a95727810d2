#pragma once

#include "common/OptionTable.h"
#include "train/TrainingRun.h"

#include <string>
#include <vector>

namespace nmt::app {

// What one nmt-train invocation (or one nmt.train call in Python) asks for: the run, and how it
// is started. nmt-train's option table is declared once, here, for both.
struct TrainingInvocation {
  TrainingRequest request;     // the structs' defaults are nmt-train's
  std::string config;          // --config
  int processes = 1;           // --processes
  double timeoutSeconds = 300; // --dist-timeout
};

void declareTrainingOptions(OptionTable& table, TrainingInvocation& invocation);

// Once the command line is in vm: the --config file's values under it, then with --resume the model
// directory's config.ini under both; the checks (option errors); data paths made absolute (so that
// --resume works from any directory); the effective config that config.ini gets.
void settleTrainingOptions(const OptionTable& table, boost::program_options::variables_map& vm,
                           TrainingInvocation& invocation);

// nmt-train's arguments (no program name) read as nmt-train reads them, for a caller in this process.
// An option error (boost::program_options::error) for a bad one.
TrainingInvocation parseTrainingArguments(const std::vector<std::string>& arguments);

}  // namespace nmt::app
