#pragma once

#include "distill/DistillationFilter.h"
#include "distill/StudentDirectory.h"
#include "train/TrainingOptions.h"
#include "util/OptionTable.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace nmt {

class Progress;

// One distillation, as nmt-distill and nmt.distill ask for it.
struct DistillationRequest {
  DistillationSource source;
  DistillationFilter filter;
  std::string studentDir;
  std::string config;  // the student's training options; "" for the built-in preset (configs/transformer-student.ini)
};

// The nmt-train options a distillation sets for its student, by name: its model directory; then `resume`
// where the student has a checkpoint, else the config (the preset as a file where none is given), the
// distilled pairs as training data, the teacher's validation set and languages. A front end adds the
// caller's own training options to these (its parser refuses the same option twice) and reads them.
using StudentOptions = std::function<TrainingInvocation(const std::vector<std::pair<std::string, OptionValue>>&)>;

// nmt-train's options a distillation sets itself (a front end refuses them from its caller).
const std::vector<std::string>& distillationSetOptions();

// How a distillation ended: stopped by a signal (the teacher's file or the student's checkpoint holds
// what was done: the same call continues), or trained as `training` says.
struct DistillationOutcome {
  bool stoppedTranslating = false;
  int signal = 0;
  TrainOutcome training{};
  std::string modelDir;
};

// Checks the request and reads the student's options (OptionError, before anything is written); then
// the teacher's translations (resumed where the teacher's file ends), the student's pairs (unless its
// training has begun), and the student's training (runTraining), reported through `progress`. Stops
// between chunks and steps once StopSignal received a signal.
DistillationOutcome runDistillation(const DistillationRequest& request, const StudentOptions& studentOptions,
                                    Progress& progress);

}  // namespace nmt
