#include "train/MetricsLog.h"

#include "util/AtomicFile.h"
#include "util/FileSystem.h"
#include "util/InputError.h"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <sstream>

namespace nmt {
namespace {

std::string field(double value, int decimals) {
  return std::isnan(value) ? std::string() : fmt::format("{:.{}f}", value, decimals);
}

}  // namespace

const char* MetricsLog::header() {
  return "step,epoch,train_loss,valid_loss,valid_ppl,valid_bleu,learning_rate,tokens_per_s,elapsed_s,workers";
}

MetricsLog::MetricsLog(const std::string& path, bool resume, int64_t resumeStep) : path_(path) {
  std::string kept = std::string(header()) + "\n";
  if (resume && files::exists(path)) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      const int64_t step = std::atoll(line.c_str());
      if (step > resumeStep) continue;
      const bool old = std::count(line.begin(), line.end(), ',') == 8;  // no workers column yet
      kept += line + (old ? ",1\n" : "\n");
    }
  }
  writeTextFileAtomically(path, kept);
  out_.open(path, std::ios::app);
  if (!out_) throw InputError("cannot append to " + path);
}

void MetricsLog::append(const MetricsRow& r) {
  out_ << fmt::format("{},{},{},{},{},{},{},{},{},{}\n", r.step, r.epoch, field(r.trainLoss, 6),
                      field(r.validLoss, 6), field(r.validPerplexity, 4), field(r.validBleu, 2),
                      fmt::format("{:.6g}", r.learningRate), field(r.tokensPerSecond, 1), field(r.elapsedSeconds, 1),
                      r.workers);
  errno = 0;
  out_.flush();
  if (!out_) throw WriteError("cannot write " + path_ + ": " + std::strerror(errno != 0 ? errno : EIO));
}

}  // namespace nmt
