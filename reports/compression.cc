// xz (liblzma), gzip (zlib) and zstd (libzstd) for report files: detection by magic bytes, bounded
// decompression (the cap counts decompressed bytes, so a small bomb is refused early), and
// compression for `--out X.json.xz|.gz|.zst`.
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "reports/input_file.h"

namespace flashscope::reports {
namespace {

constexpr size_t kChunk = 1 << 16;

std::string CapText(uint64_t max_bytes) {
  return absl::StrCat("more than ", max_bytes >> 20,
                      " MiB once decompressed (the input cap; --max-input-mb N lifts it, 0 = no "
                      "cap): refused, not expanded");
}

absl::Status Corrupt(const std::string& path, Compression c, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": ", CompressionName(c), "-compressed data is corrupt or truncated (",
                   why, "); a partial copy? `", CompressionName(c), " -t` tests the file"));
}

// Appends `n` bytes of `buf` to `out` unless that passes `max_bytes`.
absl::Status Append(const std::string& path, const char* buf, size_t n, uint64_t max_bytes,
                    std::string* out) {
  if (max_bytes != 0 && out->size() + n > max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(path, ": ", CapText(max_bytes)));
  }
  out->append(buf, n);
  return absl::OkStatus();
}

absl::StatusOr<std::string> GunzipData(absl::string_view in, uint64_t max_bytes,
                                       const std::string& path) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return Corrupt(path, Compression::kGzip, "init failed");
  std::string out;
  char buf[kChunk];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  absl::Status st;
  while (st.ok()) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      st = Corrupt(path, Compression::kGzip, z.msg ? z.msg : absl::StrCat("zlib error ", rc));
      break;
    }
    st = Append(path, buf, sizeof(buf) - z.avail_out, max_bytes, &out);
    if (!st.ok()) break;
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);              // concatenated members (gzip a b > c)
    } else if (rc == Z_BUF_ERROR) {  // no progress possible: the input ended inside a member
      st = Corrupt(path, Compression::kGzip, "unexpected end of data");
    }
  }
  inflateEnd(&z);
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::string> UnxzData(absl::string_view in, uint64_t max_bytes,
                                     const std::string& path) {
  lzma_stream z = LZMA_STREAM_INIT;
  // The decoder's own memory: 1 GiB covers every preset (-9e needs 65 MiB to decode).
  if (lzma_stream_decoder(&z, uint64_t{1} << 30, LZMA_CONCATENATED) != LZMA_OK) {
    return Corrupt(path, Compression::kXz, "decoder init failed");
  }
  std::string out;
  char buf[kChunk];
  z.next_in = reinterpret_cast<const uint8_t*>(in.data());
  z.avail_in = in.size();
  absl::Status st;
  while (st.ok()) {
    z.next_out = reinterpret_cast<uint8_t*>(buf);
    z.avail_out = sizeof(buf);
    const lzma_ret rc = lzma_code(&z, z.avail_in == 0 ? LZMA_FINISH : LZMA_RUN);
    if (rc != LZMA_OK && rc != LZMA_STREAM_END) {
      st = Corrupt(
          path, Compression::kXz,
          rc == LZMA_BUF_ERROR ? "unexpected end of data" : absl::StrCat("lzma error ", rc));
      break;
    }
    st = Append(path, buf, sizeof(buf) - z.avail_out, max_bytes, &out);
    if (rc == LZMA_STREAM_END) break;
  }
  lzma_end(&z);
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::string> UnzstdData(absl::string_view in, uint64_t max_bytes,
                                       const std::string& path) {
  ZSTD_DStream* z = ZSTD_createDStream();
  if (z == nullptr) return Corrupt(path, Compression::kZstd, "decoder init failed");
  std::string out;
  char buf[kChunk];
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  size_t last = 1;
  absl::Status st;
  while (st.ok()) {
    ZSTD_outBuffer output{buf, sizeof(buf), 0};
    last = ZSTD_decompressStream(z, &output, &input);
    if (ZSTD_isError(last)) {
      st = Corrupt(path, Compression::kZstd, ZSTD_getErrorName(last));
      break;
    }
    st = Append(path, buf, output.pos, max_bytes, &out);
    // last == 0: a frame ended and is flushed; with no input left, that is the end. Input used up
    // with a frame still open and nothing more coming out: the data was cut short.
    if (last == 0 && input.pos == input.size) break;
    if (input.pos == input.size && output.pos < output.size) break;
  }
  ZSTD_freeDStream(z);
  if (st.ok() && last != 0) st = Corrupt(path, Compression::kZstd, "unexpected end of data");
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::string> GzipData(absl::string_view in, const std::string& path) {
  z_stream z{};
  if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return absl::InternalError(absl::StrCat(path, ": gzip: deflateInit2 failed"));
  }
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return absl::InternalError(absl::StrCat(path, ": gzip error ", rc));
  return out;
}

absl::StatusOr<std::string> XzData(absl::string_view in, const std::string& path) {
  std::string out(lzma_stream_buffer_bound(in.size()), '\0');
  size_t pos = 0;
  const lzma_ret rc = lzma_easy_buffer_encode(
      LZMA_PRESET_DEFAULT, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(in.data()),
      in.size(), reinterpret_cast<uint8_t*>(out.data()), &pos, out.size());
  if (rc != LZMA_OK) return absl::InternalError(absl::StrCat(path, ": xz error ", rc));
  out.resize(pos);
  return out;
}

absl::StatusOr<std::string> ZstdData(absl::string_view in, const std::string& path) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 19);
  if (ZSTD_isError(n)) {
    return absl::InternalError(absl::StrCat(path, ": zstd: ", ZSTD_getErrorName(n)));
  }
  out.resize(n);
  return out;
}

}  // namespace

const char* CompressionName(Compression c) {
  switch (c) {
    case Compression::kGzip:
      return "gzip";
    case Compression::kXz:
      return "xz";
    case Compression::kZstd:
      return "zstd";
    case Compression::kNone:
      break;
  }
  return "uncompressed";
}

Compression CompressionOfContent(absl::string_view head) {
  if (absl::StartsWith(head, absl::string_view("\xFD"
                                               "7zXZ\0",
                                               6)))
    return Compression::kXz;
  if (absl::StartsWith(head, "\x1F\x8B")) return Compression::kGzip;
  if (absl::StartsWith(head, "\x28\xB5\x2F\xFD")) return Compression::kZstd;
  return Compression::kNone;
}

Compression CompressionForPath(const std::string& path) {
  if (absl::EndsWith(path, ".xz")) return Compression::kXz;
  if (absl::EndsWith(path, ".gz")) return Compression::kGzip;
  if (absl::EndsWith(path, ".zst")) return Compression::kZstd;
  return Compression::kNone;
}

absl::StatusOr<std::string> DecompressData(absl::string_view data, uint64_t max_bytes,
                                           const std::string& path) {
  switch (CompressionOfContent(data)) {
    case Compression::kGzip:
      return GunzipData(data, max_bytes, path);
    case Compression::kXz:
      return UnxzData(data, max_bytes, path);
    case Compression::kZstd:
      return UnzstdData(data, max_bytes, path);
    case Compression::kNone:
      break;
  }
  return std::string(data);
}

absl::StatusOr<std::string> CompressData(absl::string_view data, Compression c,
                                         const std::string& path) {
  switch (c) {
    case Compression::kGzip:
      return GzipData(data, path);
    case Compression::kXz:
      return XzData(data, path);
    case Compression::kZstd:
      return ZstdData(data, path);
    case Compression::kNone:
      break;
  }
  return std::string(data);
}

}  // namespace flashscope::reports
