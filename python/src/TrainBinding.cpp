#include "Bindings.h"

#include "TrainingOptions.h"
#include "data/ModelDirectory.h"
#include "util/Progress.h"
#include "train/TrainingRun.h"
#include "util/InputError.h"
#include "util/StopSignal.h"

#include <pybind11/stl.h>

#include <memory>
#include <optional>

namespace py = pybind11;

namespace nmt::python {
namespace {

// nmt-train's arguments for a Python call: each keyword as its option (max_steps=300 ->
// --max-steps=300; True and False as nmt-train's config files write them).
std::vector<std::string> trainingArguments(const std::optional<std::string>& config,
                                           const std::optional<std::string>& modelDir, bool resume,
                                           const py::kwargs& options) {
  std::vector<std::string> arguments;
  if (config) arguments.insert(arguments.end(), {"--config", *config});
  if (modelDir) arguments.insert(arguments.end(), {"--model-dir", *modelDir});
  if (resume) arguments.push_back("--resume");
  for (const auto& [key, value] : options) {
    std::string name = py::str(key);
    for (char& c : name)
      if (c == '_') c = '-';
    const std::string text = py::isinstance<py::bool_>(value) ? (value.cast<bool>() ? "true" : "false")
                                                               : std::string(py::str(value));
    arguments.push_back("--" + name + "=" + text);
  }
  return arguments;
}

const char* reasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kMaxSteps: return "max_steps";
    case StopReason::kMaxEpochs: return "max_epochs";
    case StopReason::kMaxTime: return "max_time";
    case StopReason::kEarlyStopping: return "patience";
    case StopReason::kSignal: return "signal";
    case StopReason::kNonFiniteLoss: return "non_finite_loss";
  }
  return "unknown";
}

py::dict train(const std::optional<std::string>& config, const std::optional<std::string>& modelDir, bool resume,
               const py::object& onValidation, bool quiet, const py::kwargs& options) {
  auto invocation = app::parseTrainingArguments(trainingArguments(config, modelDir, resume, options));
  if (invocation.processes != 1)
    throw InputError("processes: nmt.train trains in this process; nmt-train --processes N starts workers");
  TrainingRequest& request = invocation.request;
  if (!onValidation.is_none()) {
    // training copies its options without the GIL: the copies share this holder, not the Python object's
    // reference count (the last holder goes with `invocation`, the GIL held)
    auto callback = std::make_shared<py::object>(onValidation);
    request.trainer.onValidation = [callback](const ValidationEvent& e) {
      py::gil_scoped_acquire gil;
      py::dict event;
      event["step"] = e.step;
      event["loss"] = e.result.loss;
      event["perplexity"] = e.result.perplexity;
      event["bleu"] = e.result.bleu;
      event["best"] = e.improved;
      event["learning_rate"] = e.learningRate;
      (*callback)(event);
    };
  }
  TrainOutcome outcome;
  {
    py::gil_scoped_release release;
    const StopSignal::Scope stopOnSignal;  // Ctrl-C saves a checkpoint and stops, as in nmt-train
    const Runtime runtime = startRuntime(request.runtime);
    Progress progress(quiet ? nullptr : stderr);
    outcome = runTraining(request, runtime, progress);
  }
  if (outcome.reason == StopReason::kSignal) {
    PyErr_SetString(PyExc_KeyboardInterrupt, (outcome.message + "; continue with nmt.train(model_dir=" +
                                              py::repr(py::str(request.modelDir)).cast<std::string>() +
                                              ", resume=True)").c_str());
    throw py::error_already_set();
  }
  if (outcome.reason == StopReason::kNonFiniteLoss) throw std::runtime_error(outcome.message);
  const ModelDirectory dir(request.modelDir);
  py::dict summary;
  summary["steps"] = outcome.steps;
  summary["best_bleu"] = outcome.bestBleu >= 0 ? py::object(py::float_(outcome.bestBleu)) : py::none();
  summary["best_step"] = outcome.bestStep;
  summary["stopped_by"] = reasonName(outcome.reason);
  summary["message"] = outcome.message;
  summary["model_dir"] = dir.root();
  summary["best"] = dir.best();
  summary["last"] = dir.last();
  summary["metrics"] = dir.metrics();
  summary["config"] = dir.config();
  return summary;
}

}  // namespace

void bindTrain(py::module_& m) {
  m.def("train", &train, py::arg("config") = py::none(), py::arg("model_dir") = py::none(), py::arg("resume") = false,
        py::arg("on_validation") = py::none(), py::arg("quiet") = false,
        R"(Trains a model as nmt-train does, in this process: the same options, files and numbers.

    config: an nmt-train config file (configs/*.ini); keywords override it
    model_dir: where BPE models, config.ini, checkpoints and metrics.csv go
    resume: continue the run in model_dir from its last checkpoint
    on_validation: called after each validation with a dict (step, loss, perplexity, bleu, best,
        learning_rate); what it raises stops training and comes back from train()
    quiet: no progress lines on stderr
    **options: any nmt-train option, '-' written '_' (max_steps=300, train_src="train.de", ...)

Returns a dict: steps, best_bleu, best_step, stopped_by, message and the paths (model_dir, best,
last, metrics, config). Ctrl-C saves a checkpoint, as nmt-train does, and raises KeyboardInterrupt.)");
}

}  // namespace nmt::python
