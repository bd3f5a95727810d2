#include "TestSupport.h"
#include "util/AtomicFile.h"
#include "util/FileSystem.h"
#include "util/OutputFile.h"
#include "util/OutputTarget.h"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

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

TEST_CASE("output targets: a file or a new path is replaced, a link followed, a FIFO or a descriptor written in place") {
  using Kind = OutputTarget::Kind;
  test::TempDir dir;
  test::writeFile(dir.file("plain"), "old");
  REQUIRE(::chmod(dir.file("plain").c_str(), 0600) == 0);
  auto target = outputTarget(dir.file("plain"));
  CHECK(target.kind == Kind::Replace);
  CHECK(target.file == dir.file("plain"));
  CHECK(target.mode == 0600);  // the replaced file's permissions
  CHECK(target.replacesFile);
  target = outputTarget(dir.file("new"), 0640);
  CHECK((target.kind == Kind::Replace && target.file == dir.file("new") && target.mode == 0640 && !target.replacesFile));

  // links, relative ones from their own folder, links of links, a link to nothing yet
  files::createDirectories(dir.file("sub"));
  REQUIRE(::symlink("../plain", dir.file("sub/link").c_str()) == 0);
  REQUIRE(::symlink("sub/link", dir.file("link2").c_str()) == 0);
  REQUIRE(::symlink("absent", dir.file("dangling").c_str()) == 0);
  CHECK(outputTarget(dir.file("sub/link")).file == dir.file("sub/../plain"));
  target = outputTarget(dir.file("link2"));
  CHECK((target.kind == Kind::Replace && target.file == dir.file("sub/../plain") && target.mode == 0600));
  CHECK(outputTarget(dir.file("dangling")).file == dir.file("absent"));
  REQUIRE(::symlink("loop", dir.file("loop").c_str()) == 0);
  CHECK(test::errorOf([&] { outputTarget(dir.file("loop")); }) ==
        "cannot write " + dir.file("loop") + ": Too many levels of symbolic links");
  CHECK(test::errorOf([&] { outputTarget(dir.file("sub")); }) == "cannot write " + dir.file("sub") + ": Is a directory");

  // written in place: a FIFO, descriptors however named, /proc's files
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  CHECK(outputTarget(dir.file("fifo")).kind == Kind::Direct);
  for (const std::string path : {"/proc/self/fd/1", "/dev/fd/1", "/dev/stdout", "/proc/self/fd/2", "/proc/version/x"}) {
    INFO(path);
    CHECK(outputTarget(path).kind == Kind::Direct);
  }
}

TEST_CASE("OutputFile: a link's file is replaced and the link kept; a FIFO gets the text in place; a descriptor is shared") {
  test::TempDir dir;
  test::writeFile(dir.file("target"), "old");
  REQUIRE(::symlink("target", dir.file("link").c_str()) == 0);
  writeTextFileAtomically(dir.file("link"), "new\n");
  struct stat info {};
  REQUIRE(::lstat(dir.file("link").c_str(), &info) == 0);
  CHECK(S_ISLNK(info.st_mode));
  CHECK(test::readFile(dir.file("target")) == "new\n");
  CHECK_FALSE(files::exists(dir.file("link.tmp")));
  CHECK_FALSE(files::exists(dir.file("target.tmp")));
  // a replaced file keeps its permissions whatever the umask (0644 under 077 here)
  REQUIRE(::chmod(dir.file("target").c_str(), 0644) == 0);
  const mode_t umask = ::umask(077);
  writeTextFileAtomically(dir.file("target"), "newer\n");
  ::umask(umask);
  REQUIRE(::stat(dir.file("target").c_str(), &info) == 0);
  CHECK((info.st_mode & 07777) == 0644);

  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  std::string read;
  std::thread reader([&] { read = test::readFile(dir.file("fifo")); });
  writeTextFileAtomically(dir.file("fifo"), "through the pipe\n");
  reader.join();
  CHECK(read == "through the pipe\n");
  REQUIRE(::lstat(dir.file("fifo").c_str(), &info) == 0);
  CHECK(S_ISFIFO(info.st_mode));

  // /proc/self/fd/N writes at the descriptor's own offset (the shell's `>>` appends)
  const int fd = ::open(dir.file("shared").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, "first\n", 6) == 6);
  writeTextFileAtomically("/proc/self/fd/" + std::to_string(fd), "second\n");
  ::close(fd);
  CHECK(test::readFile(dir.file("shared")) == "first\nsecond\n");
  const int closed = ::open(dir.file("shared").c_str(), O_RDONLY);  // a number no descriptor has once closed
  REQUIRE(closed >= 0);
  ::close(closed);
  const std::string path = "/proc/self/fd/" + std::to_string(closed);
  CHECK(test::errorOf([&] { writeTextFileAtomically(path, "x"); }) == "cannot write " + path + ": Bad file descriptor");
}

TEST_CASE("an output file left uncommitted (a failure on the way) leaves the old file and no temporary one") {
  test::TempDir dir;
  const auto path = dir.file("f.txt");
  writeTextFileAtomically(path, "old\n");
  {
    OutputFile out(path);
    out.stream() << std::string(200000, 'x');  // more than its buffer: part of it is on disk already
    out.flush();
    CHECK(files::exists(path + ".tmp"));
  }
  CHECK(test::readFile(path) == "old\n");
  CHECK_FALSE(files::exists(path + ".tmp"));
  writeTextFileAtomically(path, "new\n");
  CHECK(test::readFile(path) == "new\n");
  CHECK_FALSE(files::exists(path + ".tmp"));
  // a write that cannot happen names the file and the system's reason
  CHECK(test::errorOf([&] { OutputFile(dir.file("f.txt/x")); }) == "cannot write " + dir.file("f.txt/x") + ": Not a directory");
  CHECK(test::errorOf([&] { OutputFile("/proc/version/x"); }) == "cannot write /proc/version/x: Not a directory");
}
