#include "profiler/resources.h"

#include <cuda.h>  // driver types and attribute names only: the functions come from the runtime
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <tuple>

#include "absl/strings/str_cat.h"
#include "profiler/cuda_check.h"

namespace flashscope::profiler {
namespace {

// The driver's functions are reached through the runtime (cudaGetDriverEntryPointByVersion)
// rather than by linking libcuda (CUDA::cuda_driver): libcuda.so.1 exists only where a GPU driver
// is installed, and the binaries that link the profiler must start on CPU-only CI machines. The
// version asked for is the toolkit's we compile with, the ABI of the PFN types below.
struct DriverFunctions {
  PFN_cuFuncGetAttribute_v2020 func_get_attribute = nullptr;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 occupancy = nullptr;
  absl::Status status;
};

template <typename Fn>
absl::Status Resolve(const char* symbol, Fn* out) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  FS_CUDA_RETURN_IF_ERROR(
      cudaGetDriverEntryPointByVersion(symbol, &fn, CUDART_VERSION, cudaEnableDefault, &found),
      absl::StrCat("cudaGetDriverEntryPointByVersion(", symbol, ")"));
  if (found != cudaDriverEntryPointSuccess || fn == nullptr) {
    return absl::UnavailableError(absl::StrCat("the CUDA driver has no ", symbol));
  }
  *out = reinterpret_cast<Fn>(fn);
  return absl::OkStatus();
}

const DriverFunctions& Driver() {
  static const DriverFunctions d = [] {
    DriverFunctions f;
    f.status = Resolve("cuFuncGetAttribute", &f.func_get_attribute);
    if (f.status.ok()) {
      f.status = Resolve("cuOccupancyMaxActiveBlocksPerMultiprocessor", &f.occupancy);
    }
    return f;
  }();
  return d;
}

absl::Status DriverStatus(CUresult r, const std::string& what) {
  if (r == CUDA_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, " failed: CUresult ", static_cast<int>(r)));
}

}  // namespace

absl::StatusOr<ResourceUsage> QueryResources(void* cu_function, const std::string& name,
                                             int block_threads, size_t dynamic_smem) {
  if (cu_function == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("QueryResources(", name, "): null function"));
  }
  if (block_threads <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("QueryResources(", name, "): block_threads must be > 0"));
  }
  const DriverFunctions& driver = Driver();
  if (!driver.status.ok()) return driver.status;
  const auto f = static_cast<CUfunction>(cu_function);
  const std::string what = absl::StrCat(" for ", name);
  int registers = 0, static_smem = 0, local = 0;
  for (auto [attribute, out, label] :
       {std::tuple{CU_FUNC_ATTRIBUTE_NUM_REGS, &registers, "NUM_REGS"},
        std::tuple{CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &static_smem, "SHARED_SIZE_BYTES"},
        std::tuple{CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &local, "LOCAL_SIZE_BYTES"}}) {
    if (absl::Status s = DriverStatus(driver.func_get_attribute(out, attribute, f),
                                      absl::StrCat("cuFuncGetAttribute(", label, ")", what));
        !s.ok()) {
      return s;
    }
  }
  ResourceUsage u;
  u.function = name;
  u.registers = registers;
  u.static_smem_bytes = static_smem;
  u.dynamic_smem_bytes = static_cast<int>(dynamic_smem);
  u.local_bytes = local;
  u.block_threads = block_threads;
  int device = 0;
  FS_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device), "cudaGetDevice");
  int max_threads_per_sm = 0;
  FS_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device),
      "cudaDeviceGetAttribute(MaxThreadsPerMultiProcessor)");
  int blocks = 0;
  // A kernel that needs more than 48 KiB of dynamic shared memory must have opted in (its
  // launch sets cudaFuncAttributeMaxDynamicSharedMemorySize) before this; otherwise the
  // occupancy API reports 0 blocks. Resources are queried after the case's launches.
  if (absl::Status s = DriverStatus(driver.occupancy(&blocks, f, block_threads, dynamic_smem),
                                    "cuOccupancyMaxActiveBlocksPerMultiprocessor" + what);
      !s.ok()) {
    return s;
  }
  const int warps_per_block = (block_threads + 31) / 32;
  const int max_warps = max_threads_per_sm / 32;
  u.theoretical_occupancy =
      max_warps > 0 ? static_cast<double>(blocks * warps_per_block) / max_warps : 0.0;
  return u;
}

absl::StatusOr<void*> CuFunctionOf(const void* runtime_function) {
  cudaFunction_t f = nullptr;
  FS_CUDA_RETURN_IF_ERROR(cudaGetFuncBySymbol(&f, runtime_function), "cudaGetFuncBySymbol");
  return static_cast<void*>(f);
}

}  // namespace flashscope::profiler
