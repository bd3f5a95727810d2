#include "util/Interruption.h"

#include <doctest/doctest.h>

#include <atomic>
#include <thread>

using namespace nmt;
using namespace std::chrono_literals;

TEST_CASE("an interruption without a question never stops, and runs the work on the calling thread") {
  Interruption none({});
  for (int i = 0; i < 100; ++i) none.check();
  std::thread::id ranOn;
  none.whileAsking([&] { ranOn = std::this_thread::get_id(); });
  CHECK((ranOn == std::this_thread::get_id()));
}

TEST_CASE("check() asks on the calling thread alone, at most every period, and stops every thread once told") {
  std::atomic<int> asked{0};
  Interruption interruption([&] { return ++asked == 3; }, 0ms);
  interruption.check();
  interruption.check();
  std::thread other([&] { interruption.check(); });  // another thread does not ask
  other.join();
  CHECK(asked == 2);
  CHECK_THROWS_AS(interruption.check(), Interrupted);
  CHECK(asked == 3);
  std::thread after([&] { CHECK_THROWS_AS(interruption.check(), Interrupted); });  // and now stops
  after.join();

  std::atomic<int> rare{0};
  Interruption slow([&] { ++rare; return false; }, 1h);
  for (int i = 0; i < 100; ++i) slow.check();
  CHECK(rare == 0);  // not asked before the hour is up
}

TEST_CASE("whileAsking asks while the work runs on another thread, whose check() then throws") {
  std::atomic<int> checks{0};
  Interruption interruption([] { return true; }, 1ms);
  CHECK_THROWS_AS(interruption.whileAsking([&] {
    for (;;) {  // until stopped
      interruption.check();
      ++checks;
      std::this_thread::sleep_for(100us);
    }
  }),
                  Interrupted);
  CHECK(checks >= 1);

  Interruption never([] { return false; }, 1ms);
  int done = 0;
  never.whileAsking([&] {
    std::this_thread::sleep_for(5ms);
    never.check();
    done = 1;
  });
  CHECK(done == 1);
}
