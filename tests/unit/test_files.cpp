#include "TestSupport.h"
#include "util/FileSystem.h"

#include <doctest/doctest.h>

#include <unistd.h>

using namespace nmt;

TEST_CASE("parentDirectory and absolutePath work on the text of a path") {
  CHECK(files::parentDirectory("a/b/c") == "a/b");
  CHECK(files::parentDirectory("a/b/") == "a");
  CHECK(files::parentDirectory("c") == "");
  CHECK(files::parentDirectory("/c") == "/");
  CHECK(files::parentDirectory("/a//b") == "/a");
  CHECK(files::absolutePath("/x/./y/../z//w/") == "/x/z/w");
  CHECK(files::absolutePath("/..") == "/");
  char cwd[4096];
  REQUIRE(getcwd(cwd, sizeof cwd));
  CHECK(files::absolutePath("d/../e") == std::string(cwd) + "/e");
}

TEST_CASE("directories are made, files renamed and trees removed") {
  test::TempDir dir;
  const std::string deep = dir.file("a/b/c");
  files::createDirectories(deep);
  files::createDirectories(deep);  // already there: fine
  CHECK(files::isDirectory(deep));
  test::writeFile(deep + "/f.txt", "x");
  CHECK(files::exists(deep + "/f.txt"));
  CHECK_FALSE(files::isDirectory(deep + "/f.txt"));
  files::rename(deep + "/f.txt", dir.file("a/g.txt"));
  CHECK_FALSE(files::exists(deep + "/f.txt"));
  CHECK(files::exists(dir.file("a/g.txt")));
  CHECK(test::errorOf([&] { files::rename(dir.file("none"), dir.file("other")); }) ==
        "cannot rename " + dir.file("none") + " to " + dir.file("other") + ": No such file or directory");
  test::writeFile(dir.file("plain"), "y");
  CHECK(test::errorOf([&] { files::createDirectories(dir.file("plain/sub")); }) ==
        "cannot create directory " + dir.file("plain") + ": File exists");
  files::removeFile(dir.file("plain"));
  files::removeFile(dir.file("plain"));  // already gone: fine
  CHECK_FALSE(files::exists(dir.file("plain")));
  CHECK(files::removeAll(dir.file("a")));
  CHECK_FALSE(files::exists(dir.file("a")));
  CHECK(files::removeAll(dir.file("a")));  // nothing there
  CHECK(files::canonicalPath(dir.file("none")).empty());
  CHECK(files::canonicalPath(dir.path() + "/.") == files::canonicalPath(dir.path()));
}

TEST_CASE("a temporary directory is new and empty, and TempDir removes it") {
  std::string path;
  {
    test::TempDir dir;
    path = dir.path();
    CHECK(files::isDirectory(path));
    CHECK(path.rfind(files::temporaryDirectory() + "/nmt-test-", 0) == 0);
    files::createDirectories(dir.file("x/y"));
    test::writeFile(dir.file("x/y/z"), "z");
  }
  CHECK_FALSE(files::exists(path));
  CHECK(files::executablePath().find("nmt_text_tests") != std::string::npos);
}
