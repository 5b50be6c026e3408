#include "kernels/abi_adapter.h"

#include <mutex>
#include <set>

#include "common/abi_convert.h"

namespace flashscope::kernels {
namespace {

const KernelEntry& EntryOf(void* user) { return *static_cast<const KernelEntry*>(user); }

// The ABI passes names as static storage; a KernelEntry makes them per call. Interned names live
// as long as the process.
const char* Intern(const std::string& name) {
  static std::mutex mutex;
  static std::set<std::string> names;
  std::lock_guard<std::mutex> lock(mutex);
  return names.insert(name).first->c_str();
}

const char* Supports(void* user, const fs_problem* problem) {
  thread_local std::string reason;  // valid until this thread's next call, as the ABI allows
  std::string why;
  const auto p = abi::ProblemFromAbi(*problem, &why);
  reason = p ? EntryOf(user).Supports(*p) : "the built-in adapter cannot read the problem: " + why;
  return reason.empty() ? nullptr : reason.c_str();
}

int32_t Launch(void* user, const fs_problem* problem, const fs_buffers* buffers, void* stream) {
  const KernelEntry& e = EntryOf(user);
  std::string why;
  const auto p = abi::ProblemFromAbi(*problem, &why);
  if (!p) return cudaErrorInvalidValue;
  const auto s = static_cast<cudaStream_t>(stream);
  if (const auto* a = std::get_if<AttentionProblem>(&*p)) {
    if (!e.attention_launch) return cudaErrorInvalidDeviceFunction;
    const fs_attention_buffers& b = buffers->attention;
    return e.attention_launch(*a, AttentionArgs{b.q, b.k, b.v, b.o, b.lse, b.softmax_scale}, s);
  }
  if (!e.gemm_launch) return cudaErrorInvalidDeviceFunction;
  const fs_gemm_buffers& b = buffers->gemm;
  return e.gemm_launch(std::get<GemmProblem>(*p), GemmArgs{b.a, b.b, b.c}, s);
}

int32_t DeviceFunctions(void* user, const fs_problem* problem, fs_device_function* out,
                        int32_t capacity) {
  std::string why;
  const auto p = abi::ProblemFromAbi(*problem, &why);
  if (!p) return 0;
  const std::vector<DeviceFunction> fns = EntryOf(user).device_functions(*p);
  for (int32_t i = 0; i < capacity && i < static_cast<int32_t>(fns.size()); ++i) {
    const DeviceFunction& f = fns[static_cast<size_t>(i)];
    fs_device_function& o = out[i];
    o = fs_device_function{};
    // The runtime's handle of a __global__ function is the driver's CUfunction.
    cudaFunction_t function = nullptr;
    if (cudaGetFuncBySymbol(&function, f.func) == cudaSuccess) o.cu_function = function;
    o.name = Intern(f.name);
    o.block_threads = f.block_threads;
    o.dynamic_smem_bytes = f.dynamic_smem_bytes;
  }
  return static_cast<int32_t>(fns.size());
}

}  // namespace

AbiTable::AbiTable(std::string name, std::string version, std::vector<KernelEntry> entries)
    : name_(std::move(name)), version_(std::move(version)), entries_(std::move(entries)) {
  kernels_.reserve(entries_.size());
  for (KernelEntry& e : entries_) {
    fs_kernel k{};
    k.struct_size = sizeof(fs_kernel);
    k.flags = abi::FlagsOf(e.info);
    k.id = e.info.id.c_str();
    k.title = e.info.title.c_str();
    k.changed = e.info.changed.c_str();
    k.family = abi::ToAbi(e.info.family);
    k.revision = e.info.revision;
    k.min_sm = e.info.min_sm;
    k.exact_sm = e.info.exact_sm;
    k.tile = abi::ToAbi(e.info.tile);
    k.user = &e;
    k.supports = &Supports;
    k.launch = &Launch;
    k.device_functions = e.device_functions ? &DeviceFunctions : nullptr;
    k.last_error = nullptr;  // launches return CUDA errors only
    kernels_.push_back(k);
  }
  plugin_.struct_size = sizeof(fs_plugin);
  plugin_.abi_version = FLASHSCOPE_ABI_VERSION;
  plugin_.name = name_.c_str();
  plugin_.version = version_.c_str();
  plugin_.kernel_count = static_cast<int32_t>(kernels_.size());
  plugin_.kernels = kernels_.data();
}

}  // namespace flashscope::kernels
