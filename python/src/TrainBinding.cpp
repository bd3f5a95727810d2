#include "Bindings.h"
#include "Errors.h"

#include "data/ModelDirectory.h"
#include "distill/Distillation.h"
#include "train/TrainingOptions.h"
#include "train/TrainingRun.h"
#include "util/InputError.h"
#include "util/Progress.h"
#include "util/StopSignal.h"

#include <fmt/core.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace nmt::python {
namespace {

// The training option a keyword names: max_steps -> max-steps.
std::string optionName(std::string keyword) {
  for (char& c : keyword)
    if (c == '_') c = '-';
  return keyword;
}

// A keyword's value as its option takes it; TypeError, as Python words it, for a value of another type.
OptionValue keywordValue(const std::string& keyword, const py::handle& value, OptionKind kind) {
  const auto wrongType = [&](const char* wanted) {
    return py::type_error(fmt::format("{} must be {}, not {}", keyword, wanted, Py_TYPE(value.ptr())->tp_name));
  };
  const bool isBool = py::isinstance<py::bool_>(value), isInt = !isBool && py::isinstance<py::int_>(value);
  switch (kind) {
    case OptionKind::kFlag:
      if (isBool) return value.cast<bool>();
      throw wrongType("bool");
    case OptionKind::kWholeNumber:
      if (isInt) {
        int overflow = 0;
        const long long whole = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
        if (overflow != 0) throw py::value_error(fmt::format("{} {} is out of range", keyword, py::str(value).cast<std::string>()));
        return static_cast<int64_t>(whole);
      }
      throw wrongType("int");
    case OptionKind::kNumber:
      if (isInt || py::isinstance<py::float_>(value)) return value.cast<double>();
      throw wrongType("float");
    case OptionKind::kText:
      if (py::isinstance<py::str>(value)) return value.cast<std::string>();
      if (py::hasattr(value, "__fspath__")) return py::module_::import("os").attr("fspath")(value).cast<std::string>();
      throw wrongType("str or os.PathLike");
    case OptionKind::kOther:
      break;
  }
  throw py::type_error(fmt::format("train() got an unexpected keyword argument '{}'", keyword));
}

// A keyword that names a training option, as its value; TypeError, as Python words it, for another.
std::pair<std::string, OptionValue> trainingValue(const char* function, const std::string& keyword,
                                                  const py::handle& value) {
  const std::string name = optionName(keyword);
  const auto kind = trainingOptionKind(name);
  if (!kind) throw py::type_error(fmt::format("{}() got an unexpected keyword argument '{}'", function, keyword));
  return {name, keywordValue(keyword, value, *kind)};
}

// The call's keywords as the training options' values (config, model_dir and resume among them).
std::vector<std::pair<std::string, OptionValue>> trainingValues(const py::object& config, const py::object& modelDir,
                                                                bool resume, const py::kwargs& options) {
  std::vector<std::pair<std::string, OptionValue>> values;
  const auto add = [&](const std::string& keyword, const py::handle& value) {
    values.push_back(trainingValue("train", keyword, value));
  };
  if (!config.is_none()) add("config", config);
  if (!modelDir.is_none()) add("model_dir", modelDir);
  if (resume) values.emplace_back("resume", true);
  for (const auto& [key, value] : options) add(py::str(key).cast<std::string>(), value);
  return values;
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

// What train() and distill() return: how training ended, and the model directory's paths.
py::dict trainingSummary(const TrainOutcome& outcome, const std::string& modelDir) {
  if (outcome.reason == StopReason::kNonFiniteLoss) throw std::runtime_error(pythonSpelling(outcome.message));
  const ModelDirectory dir(modelDir);
  py::dict summary;
  summary["steps"] = outcome.steps;
  summary["best_bleu"] = outcome.bestBleu >= 0 ? py::object(py::float_(outcome.bestBleu)) : py::none();
  summary["best_step"] = outcome.bestStep;
  summary["stopped_by"] = reasonName(outcome.reason);
  summary["message"] = pythonSpelling(outcome.message);
  summary["model_dir"] = dir.root();
  summary["best"] = dir.best();
  summary["last"] = dir.last();
  summary["metrics"] = dir.metrics();
  summary["config"] = dir.config();
  return summary;
}

py::dict train(const py::object& config, const py::object& modelDir, bool resume, const py::object& onValidation,
               bool quiet, const py::kwargs& options) {
  auto invocation = trainingOptionsFrom(trainingValues(config, modelDir, resume, options));
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
    const Runtime runtime = startRuntime(request.runtime, ModelUse::kTraining);
    Progress progress(quiet ? nullptr : stderr);
    outcome = runTraining(request, runtime, progress);
  }
  if (outcome.reason == StopReason::kSignal) {
    PyErr_SetString(PyExc_KeyboardInterrupt, (pythonSpelling(outcome.message) + "; continue with nmt.train(model_dir=" +
                                              py::repr(py::str(request.modelDir)).cast<std::string>() +
                                              ", resume=True)").c_str());
    throw py::error_already_set();
  }
  return trainingSummary(outcome, request.modelDir);
}

py::dict distill(const py::object& teacher, const py::object& modelDir, const py::object& source, int64_t teacherBeam,
                 double minScore, double maxLengthRatio, const py::object& config, bool quiet,
                 const py::kwargs& options) {
  const auto path = [](const py::object& value) {
    return value.is_none() ? std::string() : py::module_::import("os").attr("fspath")(value).cast<std::string>();
  };
  DistillationRequest request;
  request.source.teacherDir = path(teacher);
  request.source.sources = path(source);
  request.source.teacherBeam = teacherBeam;
  request.filter = {minScore, maxLengthRatio};
  request.studentDir = path(modelDir);
  request.config = path(config);
  std::vector<std::pair<std::string, OptionValue>> given;  // the student's training options
  for (const auto& [key, value] : options) {
    auto option = trainingValue("distill", py::str(key).cast<std::string>(), value);
    const auto& set = distillationSetOptions();
    if (std::find(set.begin(), set.end(), option.first) != set.end())
      throw py::type_error(fmt::format("distill() sets {} itself: the student trains on the teacher's translations, in "
                                       "model_dir",
                                       py::str(key).cast<std::string>()));
    given.push_back(std::move(option));
  }
  DistillationOutcome outcome;
  {
    py::gil_scoped_release release;
    const StopSignal::Scope stopOnSignal;  // Ctrl-C stops after a chunk or a step; the same call continues
    Progress progress(quiet ? nullptr : stderr);
    outcome = runDistillation(
        request,
        [&](std::vector<std::pair<std::string, OptionValue>> values) {
          values.insert(values.end(), given.begin(), given.end());
          return trainingOptionsFrom(values);
        },
        progress);
  }
  if (outcome.stoppedTranslating || outcome.training.reason == StopReason::kSignal) {
    PyErr_SetString(PyExc_KeyboardInterrupt, "stopped; call nmt.distill again with the same arguments to continue");
    throw py::error_already_set();
  }
  return trainingSummary(outcome.training, outcome.modelDir);
}

}  // namespace

void bindTrain(py::module_& m) {
  m.def("distill", &distill, py::arg("teacher"), py::arg("model_dir"), py::arg("source") = py::none(),
        py::arg("teacher_beam") = 5, py::arg("min_score") = 0.0, py::arg("max_length_ratio") = 0.0,
        py::arg("config") = py::none(), py::arg("quiet") = false,
        R"(Distils a teacher into a student as nmt-distill does, in this process: the teacher translates its
training sources into model_dir/distilled (resumed where a stopped call left it), then the student trains
there on them (docs/distillation.md).

    teacher: the teacher's model directory
    model_dir: the student's
    source: the sentences to translate (default: the teacher's training sources)
    teacher_beam: the teacher's beam (1: greedy search)
    min_score: drop pairs whose translation's log-probability per piece is lower (0: keep all)
    max_length_ratio: drop pairs where a side has more than this many times the other's pieces (0: keep all)
    config: the student's training options (default: the built-in student preset)
    quiet: no progress lines on stderr
    **options: the student's nmt-train options, as train() takes them (max_time=60, layers=6, ...)

Returns what train() returns. Ctrl-C stops after the chunk or step under way and raises KeyboardInterrupt;
the same call continues.)");
  m.def("train", &train, py::arg("config") = py::none(), py::arg("model_dir") = py::none(), py::arg("resume") = false,
        py::arg("on_validation") = py::none(), py::arg("quiet") = false,
        R"(Trains a model as nmt-train does, in this process: the same options, files and numbers.

    config: an nmt-train config file (configs/*.ini); keywords override it
    model_dir: where BPE models, config.ini, checkpoints and metrics.csv go
    resume: continue the run in model_dir from its last checkpoint
    on_validation: called after each validation with a dict (step, loss, perplexity, bleu, best,
        learning_rate); what it raises stops training and comes back from train()
    quiet: no progress lines on stderr
    **options: any nmt-train option, '-' written '_', of its type: int, float, bool, or str or a path
        (max_steps=300, train_src="train.de", ...); another type is a TypeError naming the keyword

Returns a dict: steps, best_bleu, best_step, stopped_by, message and the paths (model_dir, best,
last, metrics, config). Ctrl-C saves a checkpoint, as nmt-train does, and raises KeyboardInterrupt.)");
}

}  // namespace nmt::python
