// What `--out` may replace and how (issue 23, item 2; reports/output_target.h): a replaced file
// keeps its mode and owner; read-only files, hard links, symlinks, FIFOs and devices are refused
// unless forced, and forced they are replaced or written as documented; a write past the file size
// limit names the path and the limit.
#include "reports/output_target.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <thread>

#include "reports/file_util.h"
#include "reports/input_file.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;

std::string Message(const absl::Status& s) { return std::string(s.message()); }

mode_t ModeOf(const std::string& path) {
  struct stat st;
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

const WriteOptions kForce{true};

TEST(OutputTarget, AReplacedFileKeepsItsMode) {
  const std::string path = testing::MakeTempDir() + "/private.md";
  for (mode_t mode : {0600, 0640, 0664, 0755}) {
    std::ofstream(path) << "old";
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    ASSERT_TRUE(WriteFileAtomic(path, "new").ok());
    EXPECT_EQ(ModeOf(path), mode) << std::oct << mode;
    EXPECT_EQ(*ReadWholeFile(path), "new");
    ASSERT_TRUE(WriteFileAtomicNamedTemp(path, "newer").ok());
    EXPECT_EQ(ModeOf(path), mode) << "named temporary file, " << std::oct << mode;
  }
}

// --out by name: "X.json.xz" (.gz, .zst) is compressed and then written under the same rules as
// any other output (one write path: reports::WriteOutputFile).
TEST(OutputTarget, ACompressedOutFollowsTheSameRules) {
  const std::string dir = testing::MakeTempDir();
  for (const char* name : {"/r.json.xz", "/r.json.gz", "/r.json.zst"}) {
    const std::string path = dir + name;
    std::ofstream(path) << "keep";
    ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
    const absl::Status refused = WriteOutputFile(path, "{\"new\": 1}\n");
    EXPECT_THAT(Message(refused), HasSubstr(path + ": is read-only (mode 0444")) << name;
    EXPECT_EQ(*ReadWholeFile(path), "keep") << name;
    ASSERT_TRUE(WriteOutputFile(path, "{\"new\": 1}\n", kForce).ok()) << name;
    EXPECT_EQ(ModeOf(path), 0444u) << name;
    EXPECT_NE(CompressionOfContent(*ReadWholeFile(path)), Compression::kNone) << name;
    EXPECT_EQ(*ReadInputFile(path), "{\"new\": 1}\n") << name;
  }
}

TEST(OutputTarget, ANewFileGetsTheUmasksMode) {
  const std::string dir = testing::MakeTempDir();
  const mode_t old = ::umask(027);
  EXPECT_EQ(NewFileMode(), 0640u);
  ASSERT_TRUE(WriteFileAtomic(dir + "/a.csv", "x").ok());
  ASSERT_TRUE(WriteFileAtomicNamedTemp(dir + "/b.csv", "x").ok());
  ::umask(old);
  EXPECT_EQ(ModeOf(dir + "/a.csv"), 0640u);
  EXPECT_EQ(ModeOf(dir + "/b.csv"), 0640u);
}

TEST(OutputTarget, AReadOnlyFileIsRefusedUnlessForcedAndStaysReadOnly) {
  const std::string path = testing::MakeTempDir() + "/baseline.json";
  std::ofstream(path) << "keep";
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  const absl::Status s = WriteFileAtomic(path, "new");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(Message(s), HasSubstr(path + ": is read-only (mode 0444"));
  EXPECT_THAT(Message(s), HasSubstr("pass --force"));
  EXPECT_EQ(*ReadWholeFile(path), "keep");
  EXPECT_FALSE(CheckOutputTarget(path).ok());
  ASSERT_TRUE(WriteFileAtomic(path, "new", kForce).ok());
  EXPECT_EQ(*ReadWholeFile(path), "new");
  EXPECT_EQ(ModeOf(path), 0444u);
}

TEST(OutputTarget, AHardLinkIsNotSplitSilently) {
  const std::string dir = testing::MakeTempDir();
  std::ofstream(dir + "/a.json") << "shared";
  ASSERT_EQ(::link((dir + "/a.json").c_str(), (dir + "/b.json").c_str()), 0);
  const absl::Status s = WriteFileAtomic(dir + "/a.json", "new");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(Message(s), HasSubstr(dir + "/a.json: has 2 hard links"));
  EXPECT_EQ(*ReadWholeFile(dir + "/b.json"), "shared");
  // Forced: this name is replaced; the other keeps the old content (documented).
  ASSERT_TRUE(WriteFileAtomic(dir + "/a.json", "new", kForce).ok());
  EXPECT_EQ(*ReadWholeFile(dir + "/a.json"), "new");
  EXPECT_EQ(*ReadWholeFile(dir + "/b.json"), "shared");
}

TEST(OutputTarget, AReplacedFileKeepsItsOwner) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file to another user";
  const std::string path = testing::MakeTempDir() + "/theirs.json";
  std::ofstream(path) << "old";
  ASSERT_EQ(::chown(path.c_str(), 4321, 4322), 0);
  ASSERT_TRUE(WriteFileAtomic(path, "new").ok());
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 4321u);
  EXPECT_EQ(st.st_gid, 4322u);
}

TEST(OutputTarget, ForcedASymlinkIsWrittenThroughAndStaysALink) {
  const std::string dir = testing::MakeTempDir();
  std::ofstream(dir + "/real.md") << "old";
  ASSERT_EQ(::chmod((dir + "/real.md").c_str(), 0600), 0);
  ASSERT_EQ(::symlink("real.md", (dir + "/link.md").c_str()), 0);
  EXPECT_THAT(Message(WriteFileAtomic(dir + "/link.md", "new")),
              HasSubstr("pass --force to write to the file it points to"));
  ASSERT_TRUE(WriteFileAtomic(dir + "/link.md", "new", kForce).ok());
  struct stat st;
  ASSERT_EQ(::lstat((dir + "/link.md").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(*ReadWholeFile(dir + "/real.md"), "new");
  EXPECT_EQ(ModeOf(dir + "/real.md"), 0600u);
  // A dangling link names the file to create.
  ASSERT_EQ(::symlink("made.md", (dir + "/dangling.md").c_str()), 0);
  ASSERT_TRUE(WriteFileAtomic(dir + "/dangling.md", "made", kForce).ok());
  EXPECT_EQ(*ReadWholeFile(dir + "/made.md"), "made");
  // A loop is refused, not followed forever.
  ASSERT_EQ(::symlink("loop2", (dir + "/loop1").c_str()), 0);
  ASSERT_EQ(::symlink("loop1", (dir + "/loop2").c_str()), 0);
  EXPECT_FALSE(WriteFileAtomic(dir + "/loop1", "x", kForce).ok());
}

TEST(OutputTarget, ForcedAFifoIsWrittenIntoWhenSomethingReadsIt) {
  const std::string fifo = testing::MakeTempDir() + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Nobody reads it: an error at once, not a hang.
  const absl::Status alone = WriteFileAtomic(fifo, "x", kForce);
  ASSERT_FALSE(alone.ok());
  EXPECT_THAT(Message(alone), HasSubstr("a FIFO that no process reads"));
  std::string got;
  std::thread reader([&] {
    std::ifstream in(fifo);
    got.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  absl::Status s;
  for (int i = 0; i < 200; ++i) {  // until the reader has opened its end
    s = WriteFileAtomic(fifo, "through the pipe", kForce);
    if (s.ok()) break;
    usleep(10 * 1000);
  }
  reader.join();
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(got, "through the pipe");
}

TEST(OutputTarget, ADirectoryIsRefusedEvenForced) {
  const std::string dir = testing::MakeTempDir();
  EXPECT_THAT(Message(WriteFileAtomic(dir, "x", kForce)), HasSubstr("not even --force"));
}

TEST(OutputTarget, AWritePastTheFileSizeLimitNamesThePathAndTheLimit) {
  const std::string path = testing::MakeTempDir() + "/big.html";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    struct rlimit rl = {4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &rl);
    ::signal(SIGXFSZ, SIG_IGN);  // as flashscope's main does
    const std::string message = Message(WriteFileAtomic(path, std::string(1 << 20, 'x')));
    (void)!::write(fds[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string message;
  char buf[512];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) message.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  ::waitpid(pid, nullptr, 0);
  EXPECT_THAT(message, HasSubstr(path + ": write failed: File too large"));
  EXPECT_THAT(message, HasSubstr("`ulimit -f`, is 4096 bytes"));
}

}  // namespace
}  // namespace flashscope::reports
