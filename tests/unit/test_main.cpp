// The test programs' main: doctest's, plus what CTest needs to count a test case as it ran.
// - NMT_TEST_CASES_EXPECTED=N (set by CTest, which runs one test case per test): a run that matched
//   another number of test cases fails, so that a name the filter cannot match never passes.
// - A test case that skipped (NMT_SKIP_TEST) and failed nothing exits 77, CTest's SKIP_RETURN_CODE.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "TestSkip.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace nmt::test {
namespace {

std::atomic<bool> skipped{false};
std::atomic<long> matched{-1};

// Reads how many test cases the filters matched; reports nothing itself.
struct MatchedCases : doctest::IReporter {
  explicit MatchedCases(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override { matched = static_cast<long>(stats.numTestCasesPassingFilters); }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("nmt-matched-cases", 1, MatchedCases);

}  // namespace

void markSkipped() { skipped = true; }

}  // namespace nmt::test

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit() || result != 0) return result;  // a query (--list-test-cases, --count) or a failure
  if (const char* expected = std::getenv("NMT_TEST_CASES_EXPECTED"); expected && *expected) {
    if (nmt::test::matched.load() != std::atol(expected)) {
      std::fprintf(stderr, "test filter matched %ld test cases, expected %s: a name it cannot match?\n",
                   nmt::test::matched.load(), expected);
      return 1;
    }
    if (nmt::test::skipped.load()) return 77;
  }
  return 0;
}
