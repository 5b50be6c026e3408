#include "plugins/validate.h"

#include <cstddef>
#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/abi_convert.h"

namespace flashscope::plugins {
namespace {

// The sizes of ABI version 1's structs: a plugin of this ABI version has at least these fields.
// When fields are appended in a later header these constants stay as they are.
constexpr uint32_t kPluginStructSizeV1 = sizeof(fs_plugin);
// fs_kernel as version 1 of the header first had it, up to `last_error`: fields appended since
// (`prepare`) read as zero for a plugin built before them (plugins/kernel.cc).
constexpr uint32_t kKernelStructSizeV1 = offsetof(fs_kernel, prepare);
// A struct_size beyond this is garbage (an uninitialised field), not a future header.
constexpr uint32_t kMaxStructSize = 1u << 16;
constexpr int32_t kMaxKernels = 100000;
constexpr size_t kMaxIdLength = 128;
constexpr size_t kMaxTextLength = 4096;

constexpr char kHeaderFix[] =
    "build the plugin against flashscope's include/flashscope/kernel_abi.h and fill the table as "
    "docs/plugins.md shows";

absl::Status Bad(const std::string& where, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

// Printable text: no control characters (an escape sequence in a title would reach terminals).
std::string BadTextReason(const char* text, bool allow_empty) {
  if (text == nullptr) return "is NULL";
  const size_t n = strnlen(text, kMaxTextLength + 1);
  if (n > kMaxTextLength) return absl::StrCat("is longer than ", kMaxTextLength, " bytes");
  if (n == 0 && !allow_empty) return "is empty";
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) return absl::StrFormat("holds the control character 0x%02x", c);
  }
  return "";
}

absl::Status CheckText(const std::string& where, const char* field, const char* text,
                       bool allow_empty) {
  const std::string why = BadTextReason(text, allow_empty);
  if (why.empty()) return absl::OkStatus();
  return Bad(where, absl::StrCat(field, " ", why, " (a NUL-terminated one-line UTF-8 string ",
                                 allow_empty ? "" : "with text ", "in static storage)"));
}

std::string KernelWhere(const std::string& where, int index, const fs_kernel& k) {
  std::string w = absl::StrCat(where, ": kernels[", index, "]");
  if (k.id != nullptr && BadIdReason(k.id).empty()) absl::StrAppend(&w, " (\"", k.id, "\")");
  return w;
}

absl::Status CheckKernel(const fs_kernel& k, const std::string& w) {
  if (std::string why = BadIdReason(k.id); !why.empty()) return Bad(w, "id " + why);
  for (auto [field, text, empty_ok] :
       {std::tuple{"title", k.title, false}, std::tuple{"changed", k.changed, true}}) {
    if (absl::Status s = CheckText(w, field, text, empty_ok); !s.ok()) return s;
  }
  if (!abi::FamilyFromAbi(k.family)) {
    return Bad(w,
               absl::StrCat("family ", k.family,
                            " is not a family (FS_FAMILY_ATTENTION_FWD = 1, FS_FAMILY_GEMM = 2)"));
  }
  if (k.flags & ~abi::kKnownKernelFlags) {
    return Bad(w, absl::StrFormat("flags 0x%x hold bits this ABI does not define (known: "
                                  "FS_KERNEL_PEER, FS_KERNEL_NOT_IDEMPOTENT, FS_KERNEL_TEST_ONLY, "
                                  "FS_KERNEL_ACCEPTS_FP8)",
                                  k.flags));
  }
  const bool test_prefix = std::strncmp(k.id, "test.", 5) == 0;
  const bool test_flag = (k.flags & FS_KERNEL_TEST_ONLY) != 0;
  if (test_prefix && !test_flag) {
    return Bad(w,
               "the id prefix \"test.\" is reserved for kernels flagged FS_KERNEL_TEST_ONLY "
               "(set the flag, or rename the kernel)");
  }
  if (test_flag && !test_prefix) {
    return Bad(w,
               "a kernel flagged FS_KERNEL_TEST_ONLY needs an id that starts with \"test.\" "
               "(so that only a \"test.\" pattern selects it)");
  }
  if (k.min_sm < 0 || k.exact_sm < 0 || k.revision < 0) {
    return Bad(w, absl::StrCat("revision ", k.revision, ", min_sm ", k.min_sm, ", exact_sm ",
                               k.exact_sm, ": none may be negative"));
  }
  if (k.tile.block_m < 1 || k.tile.block_n < 1 || k.tile.block_k < 1 || k.tile.threads < 1) {
    return Bad(w, absl::StrCat("tile ", k.tile.block_m, "x", k.tile.block_n, "x", k.tile.block_k,
                               "/", k.tile.threads,
                               " threads: every value must be >= 1 (use 1 where one does not "
                               "apply)"));
  }
  if (k.supports == nullptr || k.launch == nullptr) {
    return Bad(w, absl::StrCat(k.supports == nullptr ? "supports" : "launch",
                               " is NULL: every kernel needs supports() and launch() "
                               "(device_functions and last_error may be NULL)"));
  }
  return absl::OkStatus();
}

absl::Status CheckPluginFields(const fs_plugin& p, const std::string& where) {
  if (absl::Status s = CheckText(where, "name", p.name, false); !s.ok()) return s;
  if (absl::Status s = CheckText(where, "version", p.version, true); !s.ok()) return s;
  if (p.kernel_count <= 0 || p.kernel_count > kMaxKernels) {
    return Bad(where, absl::StrCat("kernel_count is ", p.kernel_count, " (expected 1..",
                                   kMaxKernels, "): a plugin offers at least one kernel"));
  }
  if (p.kernels == nullptr) {
    return Bad(where, absl::StrCat("kernels is NULL but kernel_count is ", p.kernel_count));
  }
  return absl::OkStatus();
}

}  // namespace

std::string BadIdReason(const char* id) {
  if (id == nullptr) return "is NULL";
  const size_t n = strnlen(id, kMaxIdLength + 1);
  if (n == 0) return "is empty";
  if (n > kMaxIdLength) return absl::StrCat("is longer than ", kMaxIdLength, " characters");
  for (size_t i = 0; i < n; ++i) {
    const char c = id[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) {
      return absl::StrFormat(
          "\"%s\" holds %s at position %d; ids use letters, digits and ._- only",
          std::string(id, std::min(n, size_t{64})),
          (c >= 0x20 && c < 0x7f)
              ? absl::StrCat("'", std::string(1, c), "'")
              : absl::StrFormat("the byte 0x%02x", static_cast<unsigned char>(c)),
          static_cast<int>(i));
    }
  }
  return "";
}

absl::StatusOr<ValidatedTable> ValidateTable(const fs_plugin* table, const std::string& where) {
  if (table == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": ", FLASHSCOPE_PLUGIN_ENTRY_NAME, "(", FLASHSCOPE_ABI_VERSION,
                     ") returned NULL: the plugin cannot serve this flashscope's ABI version ",
                     FLASHSCOPE_ABI_VERSION, "; rebuild it against this flashscope's SDK headers"));
  }
  // Only the first two fields are the same in every ABI version.
  if (table->abi_version != FLASHSCOPE_ABI_VERSION) {
    return absl::FailedPreconditionError(absl::StrCat(
        where, ": built for plugin ABI version ", table->abi_version,
        ", but this flashscope speaks ABI version ", FLASHSCOPE_ABI_VERSION,
        ": rebuild the plugin against this flashscope's include/flashscope/kernel_abi.h (or use "
        "a flashscope that speaks version ",
        table->abi_version, ")"));
  }
  if (table->struct_size < kPluginStructSizeV1 || table->struct_size > kMaxStructSize) {
    return Bad(where, absl::StrCat("fs_plugin.struct_size is ", table->struct_size,
                                   " (expected sizeof(fs_plugin), at least ", kPluginStructSizeV1,
                                   "): ", kHeaderFix));
  }
  ValidatedTable out;
  std::memcpy(&out.plugin, table, std::min<size_t>(table->struct_size, sizeof(fs_plugin)));
  if (absl::Status s = CheckPluginFields(out.plugin, where); !s.ok()) return s;

  const auto* base = reinterpret_cast<const unsigned char*>(out.plugin.kernels);
  const uint32_t stride = out.plugin.kernels[0].struct_size;
  if (stride < kKernelStructSizeV1 || stride > kMaxStructSize) {
    return Bad(where, absl::StrCat("kernels[0].struct_size is ", stride,
                                   " (expected sizeof(fs_kernel), at least ", kKernelStructSizeV1,
                                   "): ", kHeaderFix));
  }
  std::set<std::string> ids;
  for (int i = 0; i < out.plugin.kernel_count; ++i) {
    const auto* entry = reinterpret_cast<const fs_kernel*>(base + static_cast<size_t>(i) * stride);
    if (entry->struct_size != stride) {
      return Bad(where, absl::StrCat("kernels[", i, "].struct_size is ", entry->struct_size,
                                     " but kernels[0]'s is ", stride,
                                     ": every entry of the array must have the same size"));
    }
    fs_kernel k{};
    std::memcpy(&k, entry, std::min<size_t>(stride, sizeof(fs_kernel)));
    const std::string w = KernelWhere(where, i, k);
    if (absl::Status s = CheckKernel(k, w); !s.ok()) return s;
    if (!ids.insert(k.id).second) {
      return Bad(w, absl::StrCat("the id \"", k.id,
                                 "\" appears twice in this plugin: ids must be unique"));
    }
    out.kernels.push_back(k);
  }
  return out;
}

}  // namespace flashscope::plugins
