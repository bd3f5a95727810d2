#include "util/LongCall.h"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <vector>
#include <thread>

using namespace nmt;
using namespace std::chrono_literals;

TEST_CASE("a long call without hooks never stops, and runs the work on the calling thread") {
  LongCall none({}, {});
  for (int i = 0; i < 100; ++i) none.check();
  std::thread::id ranOn;
  none.whileAsking([&] { ranOn = std::this_thread::get_id(); });
  CHECK((ranOn == std::this_thread::get_id()));
}

TEST_CASE("check() asks on the calling thread alone, at most every period, and stops every thread once told") {
  std::atomic<int> asked{0};
  LongCall call([&] { return ++asked == 3; }, {}, 0ms);
  call.check();
  call.check();
  std::thread other([&] { call.check(); });  // another thread does not ask
  other.join();
  CHECK(asked == 2);
  CHECK_THROWS_AS(call.check(), Interrupted);
  CHECK(asked == 3);
  std::thread after([&] { CHECK_THROWS_AS(call.check(), Interrupted); });  // and now stops
  after.join();

  std::atomic<int> rare{0};
  LongCall slow([&] { ++rare; return false; }, {}, 1h);
  for (int i = 0; i < 100; ++i) slow.check();
  CHECK(rare == 0);  // not asked before the hour is up
}

TEST_CASE("whileAsking asks while the work runs on another thread, whose check() then throws") {
  std::atomic<int> checks{0};
  LongCall call([] { return true; }, {}, 1ms);
  CHECK_THROWS_AS(call.whileAsking([&] {
    for (;;) {  // until stopped
      ++checks;  // (the work may not get a turn before the answer: it counts before it asks)
      call.check();
      std::this_thread::sleep_for(100us);
    }
  }),
                  Interrupted);
  CHECK(checks >= 1);

  LongCall never([] { return false; }, {}, 1ms);
  int done = 0;
  never.whileAsking([&] {
    std::this_thread::sleep_for(5ms);
    never.check();
    done = 1;
  });
  CHECK(done == 1);
}

TEST_CASE("progress is told on the calling thread as it changes, and the total at the end") {
  std::vector<std::size_t> told;
  std::vector<std::thread::id> on;
  LongCall call({}, [&](std::size_t done) { told.push_back(done), on.push_back(std::this_thread::get_id()); }, 0ms);
  call.advance(3);
  call.check();
  call.check();  // unchanged: not told again
  call.whileAsking([&] {
    for (int i = 0; i < 5; ++i) {
      call.advance(1);
      call.check();
      std::this_thread::sleep_for(2ms);
    }
  });
  call.advance(2);
  call.finish();
  REQUIRE(told.size() >= 2);
  CHECK(told.front() == 3);
  CHECK(told.back() == 10);
  for (std::size_t i = 1; i < told.size(); ++i) CHECK(told[i] > told[i - 1]);
  for (const auto& id : on) CHECK((id == std::this_thread::get_id()));
}

TEST_CASE("what the progress hook throws stops the call, on its threads too, and comes out of it") {
  LongCall call({}, [](std::size_t done) {
    if (done >= 2) throw std::runtime_error("enough");
  }, 0ms);
  CHECK_THROWS_WITH(call.whileAsking([&] {
    for (;;) {
      call.advance(1);
      call.check();  // Interrupted once the hook threw
      std::this_thread::sleep_for(1ms);
    }
  }),
                    "enough");
  CHECK_THROWS_AS(call.check(), Interrupted);
}
