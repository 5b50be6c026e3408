#include "plugins/plugin_set.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "plugins/sha256.h"
#include "plugins/validate.h"

namespace flashscope::plugins {
namespace {

// Ladder order within one plugin: its ladder by family and revision, peers after, test-only last
// (the order kernels/registry.h gives our own).
void SortInLadderOrder(std::vector<const Kernel*>* kernels) {
  std::stable_sort(kernels->begin(), kernels->end(), [](const Kernel* a, const Kernel* b) {
    auto rank = [](const Kernel* k) {
      const KernelInfo& i = k->info();
      return std::make_tuple(i.test_only, i.is_peer, static_cast<int>(i.family), i.revision);
    };
    return rank(a) < rank(b);
  });
}

// The bridge's entry: one fs_plugin per Python module (python/bridge/python_bridge.cc).
constexpr char kPythonEntryName[] = "flashscope_python_plugin_v1";

bool IsPythonModule(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0;
}

std::string Describe(const Provenance& p) {
  if (p.builtin) return "the built-in kernels";
  if (p.side == Side::kShared) return absl::StrCat("plugin ", p.path);
  return absl::StrCat("plugin ", p.path, " (--", SideName(p.side), ")");
}

// Two kernels may share an id only as the two sides of an ab comparison.
bool MayShareId(Side a, Side b) {
  return (a == Side::kBase && b == Side::kNew) || (a == Side::kNew && b == Side::kBase);
}

}  // namespace

absl::Status PluginSet::Load(const std::string& path, Side side) {
  namespace fs = std::filesystem;
  const std::string where = absl::StrCat("plugin ", path);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return absl::NotFoundError(absl::StrCat(
        where,
        ": no such file (give the path of the plugin's .so; docs/plugins.md says where "
        "flashscope looks for a bare name)"));
  }
  const std::string canonical = fs::canonical(path, ec).string();
  if (auto it = loaded_files_.find(canonical); it != loaded_files_.end()) {
    if (it->second == side) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        where, " is loaded twice, as ",
        it->second == Side::kShared ? "a plugin" : SideName(it->second), " and as ",
        side == Side::kShared ? "a plugin" : SideName(side),
        ": the two sides of a comparison must be two files (for an A/A check of one build, "
        "compare it with a copy: cp ",
        path, " copy.so)"));
  }
  auto sha256 = Sha256OfFile(path);
  if (!sha256.ok()) return sha256.status();

  auto table =
      IsPythonModule(path) ? LoadPythonModule(path, canonical) : LoadSharedLibrary(path, canonical);
  if (!table.ok()) return table.status();
  Provenance provenance;
  provenance.path = canonical;
  provenance.sha256 = *sha256;
  provenance.side = side;
  if (absl::Status s = Add(*table, std::move(provenance), where); !s.ok()) return s;
  loaded_files_[canonical] = side;
  return absl::OkStatus();
}

absl::StatusOr<const fs_plugin*> PluginSet::LoadSharedLibrary(const std::string& path,
                                                              const std::string& canonical) {
  const std::string where = absl::StrCat("plugin ", path);
  void* handle = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat(where, " cannot be loaded: ", err != nullptr ? err : "dlopen failed",
                     " (is it a shared library for this machine, with the libraries it needs on "
                     "LD_LIBRARY_PATH? `ldd ",
                     path, "` shows what is missing)"));
  }
  dlerror();
  void* symbol = dlsym(handle, FLASHSCOPE_PLUGIN_ENTRY_NAME);
  if (symbol == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        where, " does not export ", FLASHSCOPE_PLUGIN_ENTRY_NAME,
        ": define `extern \"C\" FLASHSCOPE_PLUGIN_EXPORT const fs_plugin* ",
        FLASHSCOPE_PLUGIN_ENTRY_NAME,
        "(uint32_t)` as docs/plugins.md shows (`nm -D --defined-only` lists what the file "
        "exports)"));
  }
  return reinterpret_cast<fs_plugin_entry_fn>(symbol)(FLASHSCOPE_ABI_VERSION);
}

absl::StatusOr<const fs_plugin*> PluginSet::LoadPythonModule(const std::string& path,
                                                             const std::string& canonical) {
  const std::string where = absl::StrCat("Python module ", path);
  const std::string fix =
      "(build the target flashscope_python, or set FLASHSCOPE_PYTHON_BRIDGE to "
      "libflashscope_python.so; docs/python.md)";
  if (python_bridge_.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(where, ": no Python bridge known ", fix));
  }
  void* bridge = dlopen(python_bridge_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (bridge == nullptr) {
    const char* err = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": the Python bridge ", python_bridge_,
                     " cannot be loaded: ", err != nullptr ? err : "dlopen failed", " ", fix));
  }
  dlerror();
  auto entry = reinterpret_cast<const fs_plugin* (*)(uint32_t, const char*, const char**)>(
      dlsym(bridge, kPythonEntryName));
  if (entry == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": ", python_bridge_, " does not export ", kPythonEntryName,
                     ": it is not flashscope's Python bridge ", fix));
  }
  const char* why = nullptr;
  const fs_plugin* table = entry(FLASHSCOPE_ABI_VERSION, canonical.c_str(), &why);
  if (table == nullptr) {
    // The bridge's message names the module, the interpreter and the fix (a traceback for an
    // exception raised while importing).
    return absl::FailedPreconditionError(
        why != nullptr && *why != '\0' ? std::string(why)
                                       : absl::StrCat(where, ": the Python bridge refused it"));
  }
  return table;
}

absl::Status PluginSet::AddLinked(fs_plugin_entry_fn entry) {
  Provenance provenance;
  provenance.builtin = true;
  return Add(entry(FLASHSCOPE_ABI_VERSION), std::move(provenance), "the built-in kernels");
}

absl::Status PluginSet::Add(const fs_plugin* table, Provenance provenance,
                            const std::string& where) {
  auto validated = ValidateTable(table, where);
  if (!validated.ok()) return validated.status();
  for (const fs_kernel& k : validated->kernels) {
    auto clash = by_id_.find(k.id);
    if (clash == by_id_.end()) continue;
    for (const Kernel* other : clash->second) {
      if (MayShareId(other->provenance().side, provenance.side)) continue;
      return absl::AlreadyExistsError(absl::StrCat(
          "kernel id \"", k.id, "\" is offered by both ", Describe(other->provenance()), " and ",
          Describe(provenance),
          ": ids must be unique across the plugins of a run, except between the two sides of "
          "`flashscope ab` (rename one of them, or load only one of the two files)"));
    }
  }
  provenance.plugin = validated->plugin.name;
  provenance.version = validated->plugin.version;
  plugins_.push_back(std::move(provenance));
  std::vector<const Kernel*> added;
  for (const fs_kernel& k : validated->kernels) {
    storage_.emplace_back(k, &plugins_.back());
    added.push_back(&storage_.back());
  }
  SortInLadderOrder(&added);
  for (const Kernel* k : added) {
    kernels_.push_back(k);
    by_id_[k->info().id].push_back(k);
  }
  return absl::OkStatus();
}

const Kernel* PluginSet::Find(std::string_view id, Side side) const {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return nullptr;
  for (const Kernel* k : it->second) {
    if (k->provenance().side == side) return k;
  }
  return nullptr;
}

}  // namespace flashscope::plugins
