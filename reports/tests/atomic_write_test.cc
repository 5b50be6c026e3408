// The atomic write of every output file (issue 14, items 4 and 8): targets that are not regular
// files are refused untouched, the temporary file is unique and lives beside the target, and no
// failure, not even a kill in the middle of the write, leaves it behind.
#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "reports/file_util.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;

std::set<std::string> ListDir(const std::string& dir) {
  std::set<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.insert(n);
  }
  closedir(d);
  return names;
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(AtomicWrite, RefusesASymlinkAndLeavesItAndItsTargetAlone) {
  const std::string dir = testing::MakeTempDir();
  std::ofstream(dir + "/real.txt") << "keep me";
  ASSERT_EQ(::symlink("real.txt", (dir + "/link.txt").c_str()), 0);
  absl::Status s = WriteFileAtomic(dir + "/link.txt", "new");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(Message(s), HasSubstr(dir + "/link.txt: is a symbolic link, not a regular file"));
  struct stat st;
  ASSERT_EQ(::lstat((dir + "/link.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(*ReadWholeFile(dir + "/real.txt"), "keep me");
  EXPECT_EQ(ListDir(dir), (std::set<std::string>{"link.txt", "real.txt"}));
}

TEST(AtomicWrite, RefusesAFifoADirectoryAndADeviceWithoutOpeningThem) {
  const std::string dir = testing::MakeTempDir();
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0644), 0);
  EXPECT_THAT(Message(WriteFileAtomic(dir + "/fifo", "x")), HasSubstr("is a FIFO"));
  ASSERT_EQ(::mkdir((dir + "/sub").c_str(), 0755), 0);
  EXPECT_THAT(Message(WriteFileAtomic(dir + "/sub", "x")), HasSubstr("is a directory"));
  // A character device like /dev/full, made here (only root may) so that the test never
  // touches a real one.
  if (::mknod((dir + "/full").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) {
    EXPECT_THAT(Message(WriteFileAtomic(dir + "/full", "x")), HasSubstr("is a character device"));
    struct stat st;
    ASSERT_EQ(::lstat((dir + "/full").c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
  }
  struct stat st;
  ASSERT_EQ(::lstat((dir + "/fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// Runs WriteFileAtomic in a child whose file size limit is `limit` bytes. With `killed`, the
// child keeps the default action of SIGXFSZ and dies in the middle of the write (as a `kill -9`
// would catch it); otherwise the write fails with EFBIG and the child exits with 3.
int WriteInChild(const std::string& path, size_t size, rlim_t limit, bool killed,
                 bool named_temp = false) {
  pid_t pid = ::fork();
  if (pid == 0) {
    struct rlimit rl = {limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &rl);
    ::signal(SIGXFSZ, killed ? SIG_DFL : SIG_IGN);
    const std::string data(size, 'x');
    absl::Status s =
        named_temp ? WriteFileAtomicNamedTemp(path, data) : WriteFileAtomic(path, data);
    ::_exit(s.ok() ? 0 : (Message(s).find(path) != std::string::npos ? 3 : 4));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(AtomicWrite, AFailedWriteLeavesNoTemporaryFileAndTheOldContent) {
  const std::string dir = testing::MakeTempDir();
  const std::string path = dir + "/report.json";
  std::ofstream(path) << "old";
  EXPECT_EQ(WriteInChild(path, 1 << 20, 4096, /*killed=*/false), 3);
  EXPECT_EQ(ListDir(dir), std::set<std::string>{"report.json"});
  EXPECT_EQ(*ReadWholeFile(path), "old");
  // The same where the file system has no O_TMPFILE: the mkstemp file is removed too.
  EXPECT_EQ(WriteInChild(path, 1 << 20, 4096, /*killed=*/false, /*named_temp=*/true), 3);
  EXPECT_EQ(ListDir(dir), std::set<std::string>{"report.json"});
  EXPECT_EQ(*ReadWholeFile(path), "old");
  ASSERT_TRUE(WriteFileAtomicNamedTemp(path, "new").ok());
  EXPECT_EQ(*ReadWholeFile(path), "new");
  EXPECT_EQ(ListDir(dir), std::set<std::string>{"report.json"});
}

TEST(AtomicWrite, AWriterKilledMidWriteLeavesNoTemporaryFile) {
  const std::string dir = testing::MakeTempDir();
  const std::string path = dir + "/merged.json";
  std::ofstream(path) << "old";
  EXPECT_EQ(WriteInChild(path, 1 << 20, 4096, /*killed=*/true), 128 + SIGXFSZ);
  EXPECT_EQ(ListDir(dir), std::set<std::string>{"merged.json"});
  EXPECT_EQ(*ReadWholeFile(path), "old");
  // Without O_TMPFILE nothing can remove the named temporary file of a killed process: it is the
  // documented limit of that path (docs/robustness.md), and the target still holds its old data.
  EXPECT_EQ(WriteInChild(path, 1 << 20, 4096, /*killed=*/true, /*named_temp=*/true), 128 + SIGXFSZ);
  EXPECT_EQ(ListDir(dir).size(), 2u);
  EXPECT_EQ(*ReadWholeFile(path), "old");
}

TEST(AtomicWrite, WritesANewFileReadableByOthersAndReplacesAnOldOne) {
  const std::string dir = testing::MakeTempDir();
  const std::string path = dir + "/out.csv";
  ASSERT_TRUE(WriteFileAtomic(path, "a").ok());
  ASSERT_TRUE(WriteFileAtomic(path, "bb").ok());
  EXPECT_EQ(*ReadWholeFile(path), "bb");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0044, 0044u) << "reports are for others to read (umask permitting)";
  EXPECT_EQ(ListDir(dir), std::set<std::string>{"out.csv"});
}

}  // namespace
}  // namespace flashscope::reports
