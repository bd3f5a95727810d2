#include "OpProfile.h"

#include "util/Stopwatch.h"
#include "util/TorchCompat.h"

#include <fmt/core.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <algorithm>
#include <map>
#include <vector>

namespace nmt {
namespace {

struct Interval {
  double start, end;
  std::string name;
  uint64_t thread;
};

struct Totals {
  double self = 0, inclusive = 0;
  std::size_t calls = 0;
};

}  // namespace

std::string profileOperators(const std::function<void()>& work, std::size_t top) {
  namespace profiler = torch::autograd::profiler;
  using torch::profiler::impl::ActivityType;
  using torch::profiler::impl::ProfilerConfig;
  using torch::profiler::impl::ProfilerState;
  profiler::prepareProfiler(ProfilerConfig(ProfilerState::KINETO), {ActivityType::CPU});
  profiler::enableProfiler(ProfilerConfig(ProfilerState::KINETO), {ActivityType::CPU});
  const Stopwatch watch;
  work();
  const double totalUs = watch.seconds() * 1e6;
  const auto result = profiler::disableProfiler();

  std::vector<Interval> events;
  for (const auto& e : result->events()) {
    const auto [start, duration] = compat::profilerEventUs(e);
    events.push_back({start, start + duration, e.name(), e.startThreadId()});
  }
  // per thread, by start (the outer of two equal starts first): a stack of open operators gives
  // each one's self time
  std::sort(events.begin(), events.end(), [](const Interval& a, const Interval& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::map<std::string, Totals> totals;
  std::vector<std::pair<const Interval*, double>> open;  // event, its children's time
  auto close = [&] {
    const auto [event, children] = open.back();
    open.pop_back();
    auto& t = totals[event->name];
    t.self += event->end - event->start - children;
    t.inclusive += event->end - event->start;
    t.calls += 1;
    if (!open.empty()) open.back().second += event->end - event->start;
  };
  for (const auto& e : events) {
    while (!open.empty() && (open.back().first->thread != e.thread || open.back().first->end <= e.start)) close();
    open.emplace_back(&e, 0.0);
  }
  while (!open.empty()) close();

  std::vector<std::pair<std::string, Totals>> rows(totals.begin(), totals.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.self > b.second.self; });
  double inOps = 0;
  for (const auto& [name, t] : rows) inOps += t.self;
  std::string out = fmt::format("  {:<36} {:>9} {:>10} {:>7} {:>12}\n", "operator", "calls", "self ms", "share",
                                "inclusive ms");
  for (std::size_t i = 0; i < std::min(top, rows.size()); ++i) {
    const auto& [name, t] = rows[i];
    out += fmt::format("  {:<36} {:>9} {:>10.1f} {:>6.1f}% {:>12.1f}\n", name, t.calls, t.self / 1e3,
                       100.0 * t.self / totalUs, t.inclusive / 1e3);
  }
  out += fmt::format("  {:<36} {:>9} {:>10.1f} {:>6.1f}%\n", "(outside any operator)", "",
                     std::max(0.0, totalUs - inOps) / 1e3, 100.0 * std::max(0.0, totalUs - inOps) / totalUs);
  out += fmt::format("  {:<36} {:>9} {:>10.1f}\n", "total (wall)", "", totalUs / 1e3);
  return out;
}

}  // namespace nmt
