#include "reports/json_strict.h"

#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reports/input_file.h"
#include "reports/json_fields.h"
#include "reports/json_text.h"

namespace flashscope::reports::jsonio {
namespace {

// One open object or array of the scan.
struct Level {
  bool object = false;
  std::string path;                    // JSON path of this value ("cases[3].timing")
  std::map<std::string, size_t> keys;  // object: key -> offset of its first occurrence
  size_t elements = 0;                 // array: elements seen so far
  bool expect_key = true;              // object: the next string is a key
  std::string last_key;                // object: the key whose value comes next
};

// The end (one past the closing quote) of the string that starts at `start` (a '"').
size_t StringEnd(absl::string_view text, size_t start) {
  for (size_t i = start + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return text.size();
}

// The decoded value of a JSON string token (escapes resolved: "\u0061" and "a" are one key).
std::string DecodeKey(absl::string_view token) {
  if (token.find('\\') == absl::string_view::npos) {
    return std::string(token.substr(1, token.size() - 2));
  }
  nlohmann::json j = nlohmann::json::parse(token, nullptr, /*allow_exceptions=*/false);
  return j.is_string() ? j.get<std::string>() : std::string(token);
}

// The path of the value that begins now inside `parent` (null at the top level).
std::string ChildPath(Level* parent) {
  if (parent == nullptr) return "";
  if (parent->object) return JoinPath(parent->path, parent->last_key);
  return IndexPath(parent->path, parent->elements++);
}

std::string Where(absl::string_view text, size_t offset) {
  auto [line, col] = LineColumn(text, offset);
  return absl::StrCat(line, ":", col);
}

bool InNumber(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

}  // namespace

uint64_t ApproximateTreeBytes(absl::string_view text) {
  // What nlohmann-json allocates per value (x86-64, libstdc++): 16 bytes for the value itself in
  // its parent; a string or container is a further heap object (32 to 48 bytes) plus its
  // characters; each object member is a std::map node (about 64 bytes besides key and value).
  constexpr uint64_t kValue = 16, kHeapObject = 48, kMember = 64;
  uint64_t bytes = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const size_t end = StringEnd(text, i);
      bytes += kValue + kHeapObject + (end - i);
      i = end - 1;
    } else if (c == '{' || c == '[') {
      bytes += kValue + kHeapObject;
    } else if (c == ':') {
      bytes += kMember;
    } else if (c == 't' || c == 'f' || c == 'n') {
      bytes += kValue;
      while (i + 1 < text.size() && text[i + 1] >= 'a' && text[i + 1] <= 'z') ++i;
    } else if (InNumber(c) && (i == 0 || !InNumber(text[i - 1]))) {
      bytes += kValue;
    }
  }
  return bytes;
}

std::string FindDuplicateKey(absl::string_view text) {
  std::vector<Level> stack;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    Level* top = stack.empty() ? nullptr : &stack.back();
    if (c == '"') {
      const size_t end = StringEnd(text, i);
      if (top != nullptr && top->object && top->expect_key) {
        std::string key = DecodeKey(text.substr(i, end - i));
        auto [it, fresh] = top->keys.emplace(key, i);
        if (!fresh) {
          return absl::StrCat(Where(text, i), ": duplicate key \"", key, "\" in ",
                              top->path.empty() ? "the top-level object" : top->path, " (first at ",
                              Where(text, it->second),
                              "): a value given twice is ambiguous, so it is refused; keep one");
        }
        top->last_key = std::move(key);
        top->expect_key = false;
      } else if (top != nullptr && !top->object) {
        ++top->elements;
      }
      i = end - 1;
    } else if (c == '{' || c == '[') {
      std::string path = ChildPath(top);
      Level level;
      level.object = c == '{';
      level.path = std::move(path);
      stack.push_back(std::move(level));
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
    } else if (c == ',' && top != nullptr && top->object) {
      top->expect_key = true;
    } else if (top != nullptr && !top->object && c != ',' && c != ' ' && c != '\n' && c != '\t' &&
               c != '\r' &&
               (i == 0 || text[i - 1] == ',' || text[i - 1] == '[' || text[i - 1] == ' ' ||
                text[i - 1] == '\n' || text[i - 1] == '\t' || text[i - 1] == '\r')) {
      ++top->elements;  // the first character of a scalar element
    }
  }
  return "";
}

absl::StatusOr<nlohmann::json> ParseStrict(absl::string_view text, const std::string& path,
                                           absl::string_view what) {
  if (absl::Status deep = CheckJsonDepth(text, path); !deep.ok()) return deep;
  // Refused before parsing: a tree that does not fit in memory cannot even be freed cleanly
  // (nlohmann-json allocates while destroying a large tree, so running out of memory half way
  // through parsing ends the program). 200 MB of "0," is 100 million values, 2.4 GB of tree.
  const uint64_t cap = MaxInputBytes();
  if (cap != 0) {
    const uint64_t need = ApproximateTreeBytes(text);
    if (need > kTreeBytesPerInputByte * cap) {
      return absl::ResourceExhaustedError(absl::StrCat(
          path, ": would need about ", need >> 20, " MiB of memory once parsed (",
          kTreeBytesPerInputByte, "x the input cap of ", cap >> 20,
          " MiB; flashscope's own files need less than 3x their size): refused before parsing; "
          "--max-input-mb N lifts the cap, 0 = none"));
    }
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann reports a byte offset (1-based, at the offending character); people want lines.
    auto [line, col] = LineColumn(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string reason = e.what();
    const size_t cut = reason.find("syntax error");
    return absl::InvalidArgumentError(absl::StrCat(
        path, ":", line, ":", col, ": not valid JSON: ",
        cut == std::string::npos ? reason : reason.substr(cut), " (expected ", what, ")"));
  } catch (const nlohmann::json::exception& e) {
    // Valid syntax the parser still cannot hold, e.g. a number beyond double ("1e999").
    std::string reason = e.what();
    const size_t cut = reason.find("] ");
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not valid JSON: ", cut == std::string::npos ? reason : reason.substr(cut + 2),
        " (expected ", what, ")"));
  }
  if (std::string dup = FindDuplicateKey(text); !dup.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", dup));
  }
  return j;
}

}  // namespace flashscope::reports::jsonio
