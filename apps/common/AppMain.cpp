#include "common/AppMain.h"

#include <fmt/core.h>
#include <fmt/ostream.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

namespace po = boost::program_options;

namespace nmt::app {

namespace {

// Standard output flushed; false when that or an earlier write to it failed (a full disk, /dev/full).
bool flushStandardOutput(const std::string& program) {
  errno = 0;
  std::cout.flush();  // std::cout writes through stdout: this is stdio's fflush, which sets errno
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout) return true;
  const int error = errno;
  fmt::print(stderr, "{}: error: cannot write standard output{}\n", program,
             error != 0 ? std::string(": ") + std::strerror(error) : "");
  return false;
}

// The body's exit code, or the error it threw reported on stderr and turned into one.
int outcome(const std::string& program, const std::function<int()>& body) {
  try {
    const int rc = body();
    return flushStandardOutput(program) ? rc : kExitFailure;
  } catch (const po::error& e) {
    fmt::print(stderr, "{}: {} (see {} --help)\n", program, e.what(), program);
    return kExitUsage;
  } catch (const OptionError& e) {
    fmt::print(stderr, "{}: error: {}\n", program, programSpelling(e));
    return kExitFailure;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: error: {}\n", program, e.what());
    return kExitFailure;
  }
}

}  // namespace

void runMain(const std::string& program, const std::function<int()>& body) {
  const int rc = outcome(program, body);
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(rc);
}

namespace {
std::string& versionDetails() {
  static std::string details;
  return details;
}
}  // namespace

std::string versionLine(const std::string& program) { return fmt::format("{} (nmt) {}", program, NMT_VERSION); }

void setVersionDetails(std::string details) { versionDetails() = std::move(details); }

namespace {

// parseCommandLine, and with `others` the arguments its options do not name, kept for another parser.
bool parseArguments(const std::string& program, const std::string& usage, int argc, const char* const argv[],
                    const po::options_description& options, const po::positional_options_description& positional,
                    po::variables_map& vm, std::vector<std::string>* others) {
  po::options_description general("General options");
  general.add_options()("help,h", "show this help and exit")("version", "show the version and exit");
  po::options_description all;
  all.add(options).add(general);
  po::command_line_parser parser(argc, argv);
  po::options_description withOthers;  // another parser's words: its options' values stand alone (`--x 1`)
  po::positional_options_description everyWord;
  withOthers.add(all).add_options()("nmt-other-arguments", po::value<std::vector<std::string>>());
  everyWord.add("nmt-other-arguments", -1);
  if (others)
    parser.options(withOthers).positional(everyWord).allow_unregistered();
  else
    parser.options(all).positional(positional);
  const auto parsed = parser.run();
  po::store(parsed, vm);
  if (others) *others = po::collect_unrecognized(parsed.options, po::include_positional);
  if (vm.count("help")) {
    std::ostringstream text;
    text << all;
    fmt::print("Usage: {}\n{}", usage, text.str());
    return false;
  }
  if (vm.count("version")) {
    fmt::print("{}\n", versionLine(program));
    if (!versionDetails().empty()) fmt::print("{}\n", versionDetails());
    return false;
  }
  po::notify(vm);
  return true;
}

}  // namespace

bool parseCommandLine(const std::string& program, const std::string& usage, int argc, const char* const argv[],
                      const po::options_description& options, const po::positional_options_description& positional,
                      po::variables_map& vm) {
  return parseArguments(program, usage, argc, argv, options, positional, vm, nullptr);
}

bool parseCommandLineWithOthers(const std::string& program, const std::string& usage, int argc,
                                const char* const argv[], const po::options_description& options,
                                po::variables_map& vm, std::vector<std::string>& others) {
  return parseArguments(program, usage, argc, argv, options, {}, vm, &others);
}

}  // namespace nmt::app
