#pragma once

#include "train/TrainingRun.h"
#include "util/OptionTable.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nmt {

// What one nmt-train invocation (or one nmt.train call in Python) asks for: the run, and how it
// is started. The training options are declared once, here, for both front ends: nmt-train reads
// them from its command line, nmt.train from its keywords (OptionTable::storeValues).
struct TrainingInvocation {
  TrainingRequest request;     // the structs' defaults are nmt-train's
  std::string config;          // --config
  int processes = 1;           // --processes
  double timeoutSeconds = 300; // --dist-timeout
};

void declareTrainingOptions(OptionTable& table, TrainingInvocation& invocation);

// Once the given values are in vm: the `config` file's values under them, then with `resume` the model
// directory's config.ini under both; the checks (OptionError); data paths made absolute (so that
// resuming works from any directory); the effective config that config.ini gets.
void settleTrainingOptions(const OptionTable& table, boost::program_options::variables_map& vm,
                           TrainingInvocation& invocation);

// nmt-train's arguments (no program name) read as nmt-train reads them (a boost::program_options::error
// for one the parser refuses, OptionError for a value the checks refuse).
TrainingInvocation parseTrainingArguments(const std::vector<std::string>& arguments);
// The same options given as values, each by its name as a config file writes it (OptionError for an
// unknown name, a value of another kind, or one the checks refuse).
TrainingInvocation trainingOptionsFrom(const std::vector<std::pair<std::string, OptionValue>>& values);
// What the training option `name` takes (OptionTable::kind); nullopt when there is none.
std::optional<OptionKind> trainingOptionKind(const std::string& name);

}  // namespace nmt
