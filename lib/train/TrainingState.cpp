#include "train/TrainingState.h"

#include "util/InputError.h"

#include <fmt/core.h>

#include <limits>
#include <sstream>

namespace nmt {

std::string TrainingState::toText() const {
  return fmt::format(
      "step={}\nepoch={}\nbatchInEpoch={}\nelapsedSeconds={:.17g}\nlrSchedule={}\nbestBleu={:.17g}\nbestStep={}\n"
      "staleValidations={}\nwindowLoss={:.17g}\nwindowTokens={}\nwindowBatchTokens={}\nwindowSeconds={:.17g}\n"
      "lossScaler={}\n",
      step, epoch, batchInEpoch, elapsedSeconds, lrSchedule, bestBleu, bestStep, staleValidations, windowLoss,
      windowTokens, windowBatchTokens, windowSeconds, lossScaler);
}

double TrainingState::windowTokensPerSecond() const {
  return windowSeconds > 0.0 ? static_cast<double>(windowBatchTokens) / windowSeconds
                             : std::numeric_limits<double>::quiet_NaN();
}

TrainingState TrainingState::fromText(const std::string& text) {
  TrainingState s;
  std::istringstream in(text);
  std::string line;
  int seen = 0;
  try {
    while (std::getline(in, line)) {
      const auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      const std::string key = line.substr(0, eq), v = line.substr(eq + 1);
      ++seen;
      if (key == "step") s.step = std::stoll(v);
      else if (key == "epoch") s.epoch = std::stoll(v);
      else if (key == "batchInEpoch") s.batchInEpoch = std::stoll(v);
      else if (key == "elapsedSeconds") s.elapsedSeconds = std::stod(v);
      else if (key == "lrSchedule") s.lrSchedule = v;
      else if (key == "bestBleu") s.bestBleu = std::stod(v);
      else if (key == "bestStep") s.bestStep = std::stoll(v);
      else if (key == "staleValidations") s.staleValidations = std::stoll(v);
      else if (key == "windowLoss") s.windowLoss = std::stod(v);
      else if (key == "windowTokens") s.windowTokens = std::stoll(v);
      else if (key == "windowBatchTokens") s.windowBatchTokens = std::stoll(v);
      else if (key == "windowSeconds") s.windowSeconds = std::stod(v);
      else if (key == "lossScaler") {
        s.lossScaler = v;
        --seen;  // optional: older checkpoints lack it
      } else --seen;
    }
  } catch (const std::exception&) {
    throw InputError("training state is corrupt at '" + line + "'");
  }
  if (seen != 12) throw InputError("training state is incomplete");
  return s;
}

}  // namespace nmt
