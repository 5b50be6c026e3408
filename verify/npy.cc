#include "verify/npy.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace flashscope::verify {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kPreamble = 10;  // magic, 2 version bytes, 2-byte header length

bool LittleEndianHost() {
  const uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

absl::Status Invalid(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": not a float32 C-order .npy v1.0 file (", what, ")"));
}

// The value of `key` in numpy's header dict, e.g. "'<f4'" or "(2, 3)": the text after
// "'key':" up to the next top-level comma.
std::string HeaderValue(const std::string& header, const std::string& key) {
  const std::string needle = "'" + key + "':";
  const size_t at = header.find(needle);
  if (at == std::string::npos) return "";
  size_t i = at + needle.size();
  int depth = 0;
  std::string value;
  for (; i < header.size(); ++i) {
    const char c = header[i];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if ((c == ',' || c == '}') && depth == 0) break;
    value += c;
  }
  return std::string(absl::StripAsciiWhitespace(value));
}

}  // namespace

absl::Status WriteNpy(const std::string& path, const float* data,
                      const std::vector<int64_t>& shape) {
  if (!LittleEndianHost()) {
    return absl::UnimplementedError(
        absl::StrCat(path, ": .npy writing assumes a little-endian host"));
  }
  std::string shape_text = "(";
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": negative dimension ", shape[i]));
    }
    n *= shape[i];
    absl::StrAppend(&shape_text, shape[i],
                    shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  }
  shape_text += ")";
  std::string header =
      absl::StrCat("{'descr': '<f4', 'fortran_order': False, 'shape': ", shape_text, ", }");
  // Pad with spaces and end with a newline so that the data starts on a 64-byte boundary.
  const size_t unpadded = kPreamble + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": .npy header too long for v1.0"));
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open ", path, " for writing: ", std::strerror(errno),
                     " (does the directory exist and is it writable?)"));
  }
  const unsigned char version[2] = {1, 0};
  const uint16_t hlen = static_cast<uint16_t>(header.size());
  const unsigned char len_bytes[2] = {static_cast<unsigned char>(hlen & 0xFF),
                                      static_cast<unsigned char>(hlen >> 8)};
  f.write(kMagic, kMagicLen);
  f.write(reinterpret_cast<const char*>(version), 2);
  f.write(reinterpret_cast<const char*>(len_bytes), 2);
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n * sizeof(float)));
  f.close();
  if (!f) {
    return absl::DataLossError(absl::StrCat("writing ", path, " failed (disk full?)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<NpyArray> ReadNpy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < kPreamble || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0) {
    return Invalid(path, "no \\x93NUMPY magic");
  }
  if (bytes[6] != 1 || bytes[7] != 0) {
    return Invalid(path, absl::StrCat("format version ", static_cast<int>(bytes[6]), ".",
                                      static_cast<int>(bytes[7])));
  }
  const size_t hlen = static_cast<unsigned char>(bytes[8]) |
                      (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  if (bytes.size() < kPreamble + hlen) return Invalid(path, "truncated header");
  const std::string header = bytes.substr(kPreamble, hlen);
  const std::string descr = HeaderValue(header, "descr");
  if (descr != "'<f4'") return Invalid(path, absl::StrCat("dtype ", descr));
  if (HeaderValue(header, "fortran_order") != "False") return Invalid(path, "Fortran order");
  std::string shape_text = HeaderValue(header, "shape");
  if (shape_text.size() < 2 || shape_text.front() != '(' || shape_text.back() != ')') {
    return Invalid(path, absl::StrCat("shape ", shape_text));
  }
  NpyArray a;
  int64_t n = 1;
  for (absl::string_view part :
       absl::StrSplit(shape_text.substr(1, shape_text.size() - 2), ',', absl::SkipWhitespace())) {
    int64_t dim;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &dim) || dim < 0) {
      return Invalid(path, absl::StrCat("shape ", shape_text));
    }
    a.shape.push_back(dim);
    n *= dim;
  }
  const size_t want = kPreamble + hlen + static_cast<size_t>(n) * sizeof(float);
  if (bytes.size() != want) {
    return Invalid(path, absl::StrCat(bytes.size(), " bytes where the shape needs ", want));
  }
  a.data.resize(static_cast<size_t>(n));
  std::memcpy(a.data.data(), bytes.data() + kPreamble + hlen,
              static_cast<size_t>(n) * sizeof(float));
  return a;
}

}  // namespace flashscope::verify
