#include "verify/npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace flashscope::verify {
namespace {

std::string TempPath(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "flashscope_npy_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

TEST(Npy, RoundTripShapes) {
  const std::vector<std::vector<int64_t>> shapes = {{2, 3, 4}, {5}, {}, {1, 0}, {2, 1, 3, 2}};
  for (const auto& shape : shapes) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> data(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) data[i] = 0.5f * i - 3.25f;
    const std::string path = TempPath("rt.npy");
    ASSERT_TRUE(WriteNpy(path, data.data(), shape).ok());
    const std::string bytes = ReadAll(path);
    // Data starts on a 64-byte boundary, as numpy writes it.
    EXPECT_EQ((bytes.size() - n * sizeof(float)) % 64, 0u);
    const absl::StatusOr<NpyArray> back = ReadNpy(path);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->shape, shape);
    EXPECT_EQ(back->data, data);
  }
}

TEST(Npy, HeaderIsWhatNumpyExpects) {
  const float data[6] = {1, 2, 3, 4, 5, 6};
  const std::string path = TempPath("hdr.npy");
  ASSERT_TRUE(WriteNpy(path, data, {2, 3}).ok());
  const std::string bytes = ReadAll(path);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(bytes[6], 1);
  EXPECT_EQ(bytes[7], 0);
  EXPECT_NE(bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"),
            std::string::npos);
  const size_t hlen =
      static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ(bytes[10 + hlen - 1], '\n');
  ASSERT_TRUE(WriteNpy(path, data, {6}).ok());
  EXPECT_NE(ReadAll(path).find("'shape': (6,)"), std::string::npos);
}

TEST(Npy, ErrorsNameThePath) {
  const std::string missing = TempPath("does_not_exist.npy");
  std::remove(missing.c_str());
  const absl::StatusOr<NpyArray> r = ReadNpy(missing);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find(missing), std::string::npos);

  const std::string bad = TempPath("bad.npy");
  std::ofstream(bad, std::ios::binary) << "not numpy at all";
  const absl::StatusOr<NpyArray> rb = ReadNpy(bad);
  EXPECT_EQ(rb.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(rb.status().message().find(bad), std::string::npos);

  // A float64 file (as numpy would write np.zeros(2)) is refused with the dtype named.
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string f64 = std::string("\x93NUMPY\x01\x00", 8);
  f64 += static_cast<char>(header.size() & 0xFF);
  f64 += static_cast<char>(header.size() >> 8);
  f64 += header + std::string(16, '\0');
  const std::string f64_path = TempPath("f64.npy");
  std::ofstream(f64_path, std::ios::binary) << f64;
  const absl::StatusOr<NpyArray> rf = ReadNpy(f64_path);
  EXPECT_EQ(rf.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(rf.status().message().find("<f8"), std::string::npos);

  // A truncated data section is refused.
  const float data[4] = {1, 2, 3, 4};
  const std::string trunc = TempPath("trunc.npy");
  ASSERT_TRUE(WriteNpy(trunc, data, {4}).ok());
  std::filesystem::resize_file(trunc, std::filesystem::file_size(trunc) - 4);
  EXPECT_FALSE(ReadNpy(trunc).ok());

  const absl::Status w = WriteNpy("/nonexistent_dir_flashscope/x.npy", data, {4});
  EXPECT_FALSE(w.ok());
  EXPECT_NE(w.message().find("/nonexistent_dir_flashscope/x.npy"), std::string::npos);
}

}  // namespace
}  // namespace flashscope::verify
