// Bounded reading of every file flashscope reads (reports, gate policies, suites, plans, journals):
// regular files only (or "-" for standard input where a command documents it), a cap on the bytes
// held in memory, and reports compressed with xz, gzip or zstd recognised by their first bytes and
// decompressed transparently, with the cap applied to the decompressed stream (a decompression
// bomb is refused, not expanded). docs/robustness.md lists what is refused and why.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace flashscope::reports {

// 256 MiB: the largest committed report is about 20 MB; a report that big is a mistake or an
// attack, and a reader would need several times its size in memory to parse it.
inline constexpr uint64_t kDefaultMaxInputBytes = uint64_t{256} << 20;

// The cap for this process (every reader): `--max-input-mb N` sets it (0 = no cap).
void SetMaxInputBytes(uint64_t bytes);
uint64_t MaxInputBytes();
// "256 MiB" (or "no cap").
std::string MaxInputText();

enum class Compression { kNone, kGzip, kXz, kZstd };
const char* CompressionName(Compression c);  // "uncompressed", "gzip", "xz", "zstd"
// By the magic bytes at the start of `head` (xz FD 37 7A 58 5A 00, gzip 1F 8B, zstd 28 B5 2F FD).
Compression CompressionOfContent(absl::string_view head);
// By the file name, for writing: ".xz", ".gz", ".zst" (after ".json" or not); else kNone.
Compression CompressionForPath(const std::string& path);

// The whole content of `path`, decompressed when its first bytes say so. "-" reads standard input
// (commands say where they accept it). Refuses: a missing file (NotFound), a directory, a device,
// FIFO or socket (not a regular file: /dev/zero would never end), more than MaxInputBytes() bytes
// after decompression, and corrupt or truncated compressed data. Every message names the path.
// `as_stored`, when given, receives the bytes as the file holds them (before decompression): what
// a SHA-256 of the file is taken of, from the same read as the text.
absl::StatusOr<std::string> ReadInputFile(const std::string& path,
                                          std::string* as_stored = nullptr);

// `data` compressed as `c` (kNone: returned as is). `path` is for messages.
absl::StatusOr<std::string> CompressData(absl::string_view data, Compression c,
                                         const std::string& path);
// `data` decompressed as its magic bytes say, at most `max_bytes` (0 = no cap) of output.
absl::StatusOr<std::string> DecompressData(absl::string_view data, uint64_t max_bytes,
                                           const std::string& path);

// Reads `path` (a regular file, opened by the caller-independent rules above, not compressed) line
// by line under a shared lock, calling `line_fn(line_no, line)` for each line of at most
// `max_line` bytes. A longer line is never held whole: it is skipped and `long_fn(line_no, bytes)`
// is called instead. The total kept is bounded by MaxInputBytes(). A non-OK status from line_fn
// stops the reading and is returned.
absl::Status ReadLines(const std::string& path, uint64_t max_line,
                       const std::function<absl::Status(int, absl::string_view)>& line_fn,
                       const std::function<void(int, uint64_t)>& long_fn);

}  // namespace flashscope::reports
