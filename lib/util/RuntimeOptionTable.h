#pragma once

#include "util/OptionTable.h"
#include "util/Runtime.h"

namespace nmt {

// --threads, --device, --precision: declared once, for every program that runs a model and nmt.train.
void declareRuntimeOptions(OptionTable& table, RuntimeOptions& options);

}  // namespace nmt
