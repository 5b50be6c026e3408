// Bounded reading (reports/input_file.h): regular files only, a size cap that counts decompressed
// bytes, xz/gzip/zstd recognised by content, and journals read line by line.
#include "reports/input_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

// Restores the process-wide cap after a test changes it.
struct CapGuard {
  ~CapGuard() { SetMaxInputBytes(kDefaultMaxInputBytes); }
};

TEST(InputFile, DevicesDirectoriesAndFifosAreRefusedWithoutReading) {
  for (const char* path : {"/dev/zero", "/dev/null"}) {
    absl::StatusOr<std::string> r = ReadInputFile(path);
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_THAT(Message(r.status()), HasSubstr("is a character device, not a regular file"));
  }
  absl::StatusOr<std::string> dir = ReadInputFile(testing::MakeTempDir());
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(Message(dir.status()), HasSubstr("is a directory"));
  absl::StatusOr<Report> report = ReadReportFile("/dev/zero");
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(Message(report.status()), HasSubstr("/dev/zero: is a character device"));
}

TEST(InputFile, EveryCompressionRoundTripsAndIsRecognisedByContentNotName) {
  const std::string dir = testing::MakeTempDir();
  const Report report = testing::FullReport();
  for (const char* ext : {".json.xz", ".json.gz", ".json.zst"}) {
    const std::string path = dir + "/r" + ext;
    ASSERT_TRUE(WriteReportFileAtomic(report, path).ok()) << ext;
    absl::StatusOr<std::string> raw = ReadInputFile(path);
    ASSERT_TRUE(raw.ok()) << raw.status();
    EXPECT_EQ(*raw, ReportToText(report)) << ext;
    // Renamed to a plain .json, it is still read: the magic bytes decide.
    const std::string plain = dir + "/renamed" + std::string(ext).substr(5) + ".json";
    ASSERT_EQ(std::rename(path.c_str(), plain.c_str()), 0);
    absl::StatusOr<Report> back = ReadReportFile(plain);
    ASSERT_TRUE(back.ok()) << back.status();
    testing::ExpectSameReport(report, *back);
  }
}

TEST(InputFile, TruncatedCompressedDataNamesTheFormat) {
  const std::string dir = testing::MakeTempDir();
  const std::string text = ReportToText(testing::FullReport());
  for (Compression c : {Compression::kXz, Compression::kGzip, Compression::kZstd}) {
    absl::StatusOr<std::string> packed = CompressData(text, c, "x");
    ASSERT_TRUE(packed.ok());
    const std::string path = dir + "/cut";
    WriteBytes(path, packed->substr(0, packed->size() / 2));
    absl::StatusOr<std::string> r = ReadInputFile(path);
    ASSERT_FALSE(r.ok()) << CompressionName(c);
    EXPECT_THAT(Message(r.status()),
                HasSubstr(std::string(CompressionName(c)) + "-compressed data is corrupt or "
                                                            "truncated"));
  }
}

TEST(InputFile, TheCapCountsDecompressedBytesSoABombIsRefused) {
  CapGuard guard;
  const std::string dir = testing::MakeTempDir();
  // 3 MiB of zeros compress to a few KB: under a 1 MiB cap the file is small, its content not.
  const std::string zeros(3 << 20, '0');
  for (Compression c : {Compression::kXz, Compression::kGzip, Compression::kZstd}) {
    absl::StatusOr<std::string> packed = CompressData(zeros, c, "x");
    ASSERT_TRUE(packed.ok());
    ASSERT_LT(packed->size(), size_t{1} << 20);
    const std::string path = dir + "/bomb";
    WriteBytes(path, *packed);
    SetMaxInputBytes(uint64_t{1} << 20);
    absl::StatusOr<std::string> r = ReadInputFile(path);
    ASSERT_FALSE(r.ok()) << CompressionName(c);
    EXPECT_THAT(Message(r.status()), HasSubstr("more than 1 MiB once decompressed"));
    EXPECT_THAT(Message(r.status()), HasSubstr("--max-input-mb"));
    SetMaxInputBytes(0);  // no cap: read whole
    absl::StatusOr<std::string> whole = ReadInputFile(path);
    ASSERT_TRUE(whole.ok()) << CompressionName(c) << ": " << whole.status();
    EXPECT_EQ(whole->size(), zeros.size());
  }
}

TEST(InputFile, APlainFileOverTheCapIsRefusedBeforeReading) {
  CapGuard guard;
  const std::string path = testing::MakeTempDir() + "/big.json";
  WriteBytes(path, std::string((1 << 20) + 1, ' '));
  SetMaxInputBytes(uint64_t{1} << 20);
  absl::StatusOr<std::string> r = ReadInputFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(Message(r.status()), HasSubstr("big.json: holds more than 1 MiB"));
}

TEST(InputFile, LinesLongerThanTheLimitAreSkippedUnread) {
  const std::string path = testing::MakeTempDir() + "/lines";
  WriteBytes(path, "ab\n" + std::string(100, 'x') + "\ncd\nlast-without-newline");
  std::vector<std::string> lines;
  std::vector<std::pair<int, uint64_t>> long_lines;
  absl::Status st = ReadLines(
      path, 10,
      [&](int, absl::string_view line) {
        lines.emplace_back(line);
        return absl::OkStatus();
      },
      [&](int no, uint64_t bytes) { long_lines.emplace_back(no, bytes); });
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(lines, (std::vector<std::string>{"ab", "cd"}));
  // The last line has no newline and 20 bytes > 10: skipped as well.
  EXPECT_EQ(long_lines, (std::vector<std::pair<int, uint64_t>>{{2, 100}, {4, 20}}));
}

}  // namespace
}  // namespace flashscope::reports
