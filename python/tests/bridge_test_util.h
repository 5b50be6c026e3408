// What the bridge's tests share: loading libflashscope_python.so, problems, fake buffers, and the
// calls the test modules record (modules/recorder.py).
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "flashscope/kernel_abi.h"
#include "nlohmann/json.hpp"

namespace flashscope::python_bridge::testing {

using Entry = const fs_plugin* (*)(uint32_t, const char*, const char**);

inline std::string ModulePath(const std::string& name) {
  return std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/python/tests/modules/" + name;
}

inline std::string RecordPath() {
  return ::testing::TempDir() + "python_bridge_record_" + std::to_string(getpid()) + ".jsonl";
}

// The bridge built beside this test, or $FLASHSCOPE_TEST_BRIDGE (a bridge carried elsewhere).
inline std::string BridgePath() {
  const char* carried = std::getenv("FLASHSCOPE_TEST_BRIDGE");
  return carried != nullptr ? carried : FLASHSCOPE_PYTHON_BRIDGE;
}

// The folder of the bridge: the shipped kernel modules lie there.
inline std::string PluginDir() {
  const std::string bridge = BridgePath();
  return bridge.substr(0, bridge.rfind('/'));
}

// The bridge's entry (the library is loaded once per process).
inline Entry BridgeEntry() {
  static Entry entry = [] {
    void* lib = dlopen(BridgePath().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) ADD_FAILURE() << dlerror();
    return lib ? reinterpret_cast<Entry>(dlsym(lib, "flashscope_python_plugin_v1")) : nullptr;
  }();
  return entry;
}

// The CPU tests' environment: the stand-in torch on PYTHONPATH, FLASHSCOPE_PYTHON the configured
// interpreter unless a test set another, the record file. Before the first load.
inline void UseStandInTorch() {
  setenv("PYTHONPATH", FLASHSCOPE_TEST_SOURCE_DIR "/python/tests/fake_torch", 1);
  setenv("FLASHSCOPE_PYTHON", FLASHSCOPE_TEST_PYTHON, 0);
  setenv("FLASHSCOPE_TEST_RECORD", RecordPath().c_str(), 1);
}

// Loads a module from python/tests/modules; `error` gets the bridge's message when it refuses.
inline const fs_plugin* LoadModule(const std::string& name, std::string* error = nullptr) {
  UseStandInTorch();
  Entry entry = BridgeEntry();
  if (entry == nullptr) return nullptr;
  const char* why = nullptr;
  const fs_plugin* plugin = entry(FLASHSCOPE_ABI_VERSION, ModulePath(name).c_str(), &why);
  if (error != nullptr) *error = why != nullptr ? why : "";
  return plugin;
}

inline const fs_kernel* FindKernel(const fs_plugin* p, const std::string& id) {
  for (int i = 0; p != nullptr && i < p->kernel_count; ++i) {
    if (id == p->kernels[i].id) return &p->kernels[i];
  }
  return nullptr;
}

inline fs_problem Attention(int64_t b, int64_t h, int64_t sq, int64_t sk, int64_t d, fs_dtype dtype,
                            bool causal, bool lse) {
  fs_problem p{};
  p.family = FS_FAMILY_ATTENTION_FWD;
  p.attention = {b, h, sq, sk, d, dtype, causal ? 1 : 0, lse ? 1 : 0, 0};
  return p;
}

inline fs_problem Gemm(int64_t m, int64_t n, int64_t k, fs_dtype dtype) {
  fs_problem p{};
  p.family = FS_FAMILY_GEMM;
  p.gemm = {m, n, k, dtype, 0};
  return p;
}

// Pointers nothing dereferences (the stand-in torch only records them).
constexpr uintptr_t kQ = 0x7f0000100000, kK = 0x7f0000200000, kV = 0x7f0000300000,
                    kO = 0x7f0000400000, kLse = 0x7f0000500000, kA = 0x7f0000600000,
                    kB = 0x7f0000700000, kC = 0x7f0000800000;
inline void* const kStream = reinterpret_cast<void*>(0x5eed);

inline fs_buffers FakeBuffers(const fs_problem& p) {
  fs_buffers b{};
  if (p.family == FS_FAMILY_ATTENTION_FWD) {
    b.attention = {reinterpret_cast<const void*>(kQ),
                   reinterpret_cast<const void*>(kK),
                   reinterpret_cast<const void*>(kV),
                   reinterpret_cast<void*>(kO),
                   p.attention.want_lse ? reinterpret_cast<float*>(kLse) : nullptr,
                   0.125f};
  } else {
    b.gemm = {reinterpret_cast<const void*>(kA), reinterpret_cast<const void*>(kB),
              reinterpret_cast<float*>(kC)};
  }
  return b;
}

// The calls recorded since the last Take (the file is emptied).
inline std::vector<nlohmann::json> TakeRecords() {
  std::vector<nlohmann::json> out;
  std::ifstream in(RecordPath());
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  std::ofstream(RecordPath(), std::ios::trunc);
  return out;
}

}  // namespace flashscope::python_bridge::testing
