#pragma once

#include "util/InputError.h"

#include <boost/program_options.hpp>

#include <functional>
#include <string>
#include <vector>

namespace nmt::app {

// Exit codes shared by every program of the toolkit.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,  // bad input data, a failed operation
  kExitUsage = 2,    // bad options or arguments
};

// Runs a program's body, turning any exception into one line on stderr and an exit code
// (option errors give kExitUsage, everything else kExitFailure), then ends the process with that
// code once standard output and error are flushed. It skips static destructors (std::_Exit):
// LibTorch's unregister its thousands of operators one by one, 50 ms at every exit, and nothing of
// a program's work is left to them (its files are committed and closed inside the body).
[[noreturn]] void runMain(const std::string& program, const std::function<int()>& body);

// "PROGRAM (nmt) VERSION"
std::string versionLine(const std::string& program);

// More lines for --version (the programs that link LibTorch add its runtime description).
void setVersionDetails(std::string details);

// Parses argv against `options` (and `positional`), handling --help and --version.
// Returns false when the program should exit 0 (help or version printed).
bool parseCommandLine(const std::string& program, const std::string& usage, int argc, const char* const argv[],
                      const boost::program_options::options_description& options,
                      const boost::program_options::positional_options_description& positional,
                      boost::program_options::variables_map& vm);

// The same, where the options are partly another parser's: every argument `options` do not name is
// left in `others`, in order (nmt-distill passes them on to nmt-train's options).
bool parseCommandLineWithOthers(const std::string& program, const std::string& usage, int argc,
                                const char* const argv[], const boost::program_options::options_description& options,
                                boost::program_options::variables_map& vm, std::vector<std::string>& others);

// Options named as on the command line (--nbest): an OptionError's message, or marked text.
inline std::string commandLineName(const std::string& name) { return "--" + name; }
inline std::string programSpelling(const std::string& marked) { return spelledOptions(marked, commandLineName); }
inline std::string programSpelling(const OptionError& e) { return e.spelled(commandLineName); }

// The value `check` returns; an InputError it throws becomes an option error (exit code 2,
// "see PROGRAM --help"), for option values that a library function checks.
template <typename Check>
auto optionValue(Check&& check) -> decltype(check()) {
  try {
    return check();
  } catch (const OptionError& e) {
    throw boost::program_options::error(programSpelling(e));
  } catch (const InputError& e) {
    throw boost::program_options::error(e.what());
  }
}

}  // namespace nmt::app
