#include "TestSupport.h"
#include "util/DirectoryLock.h"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <string>

using namespace nmt;
using nmt::test::errorOf;

TEST_CASE("directory lock: one holder at a time, named in the next one's message; released when it goes") {
  const test::TempDir dir;
  const std::string pid = std::to_string(::getpid());
  std::optional<DirectoryLock> first;
  first.emplace(dir.path(), "nmt-test", "choose another folder");
  CHECK(errorOf([&] { DirectoryLock second(dir.path(), "nmt-other", "choose another folder"); }) ==
        dir.path() + " is in use by nmt-test (process " + pid + "); wait for it to end or choose another folder");
  first.reset();
  CHECK(errorOf([&] { DirectoryLock second(dir.path(), "nmt-other", "choose another folder"); }).empty());
  CHECK(errorOf([&] { DirectoryLock lock(dir.file("missing"), "nmt-test", "x"); }) ==
        "cannot lock " + dir.file("missing") + ": cannot open " + dir.file("missing") + "/.lock: No such file or directory");
}

TEST_CASE("directory lock: a holder killed with SIGKILL leaves no stale lock") {
  const test::TempDir dir;
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // holds the lock until killed
    const DirectoryLock lock(dir.path(), "nmt-child", "x");
    (void)!::write(ready[1], "1", 1);
    for (;;) ::pause();
  }
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  CHECK(errorOf([&] { DirectoryLock mine(dir.path(), "nmt-test", "try later"); }) ==
        dir.path() + " is in use by nmt-child (process " + std::to_string(child) + "); wait for it to end or try later");
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(errorOf([&] { DirectoryLock mine(dir.path(), "nmt-test", "try later"); }).empty());
  ::close(ready[0]);
  ::close(ready[1]);
}
