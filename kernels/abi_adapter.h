// KernelEntry values offered through the plugin C ABI (include/flashscope/kernel_abi.h): the
// adapter by which our own ladder and peers (the built-in plugin, linked into flashscope-worker)
// and the test-only kernels (the test plugin, kernels/testing/) reach the runner by the same path
// as a user's plugin. Problem and enum translations are common/abi_convert.h's.
#pragma once

#include <string>
#include <vector>

#include "flashscope/kernel_abi.h"
#include "kernels/registry.h"

namespace flashscope::kernels {

// An fs_plugin table over `entries`. The table points into this object: keep it alive (static)
// for as long as the table may be used.
class AbiTable {
 public:
  AbiTable(std::string name, std::string version, std::vector<KernelEntry> entries);
  AbiTable(const AbiTable&) = delete;
  AbiTable& operator=(const AbiTable&) = delete;

  const fs_plugin* plugin() const { return &plugin_; }

 private:
  std::string name_;
  std::string version_;
  std::vector<KernelEntry> entries_;  // never resized after construction: fs_kernel.user points
  std::vector<fs_kernel> kernels_;
  fs_plugin plugin_{};
};

}  // namespace flashscope::kernels

// The built-in plugin: AllKernels(), named "built-in", versioned by flashscope's git revision.
// Registered by flashscope-worker with PluginSet::AddLinked, never dlopen'ed.
extern "C" const fs_plugin* flashscope_builtin_plugin_v1(uint32_t host_abi_version);
