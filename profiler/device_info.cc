#include "profiler/device_info.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "profiler/cuda_check.h"

namespace flashscope::profiler {
namespace {

std::string CudaVersionText(int v) { return absl::StrCat(v / 1000, ".", (v % 1000) / 10); }

// The full driver version ("580.95.05") comes from NVML, loaded at run time so that flashscope
// neither needs nvml.h to build nor libnvidia-ml to start. Empty when NVML is not there.
std::string NvmlDriverVersion() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return "";
  using InitFn = int (*)();
  using VersionFn = int (*)(char*, unsigned int);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
  auto version = reinterpret_cast<VersionFn>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<InitFn>(dlsym(lib, "nvmlShutdown"));
  std::string out;
  if (init && version && init() == 0) {  // 0 == NVML_SUCCESS
    char buf[96] = {};
    if (version(buf, sizeof(buf)) == 0) out = buf;
    if (shutdown) shutdown();
  }
  dlclose(lib);
  return out;
}

}  // namespace

absl::StatusOr<int> CountDevices() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && n == 0)) {
    cudaGetLastError();  // clear the error so later calls do not see it
    return absl::FailedPreconditionError(absl::StrCat(
        "no CUDA GPU available (", e == cudaSuccess ? "0 devices" : CudaErrorText(e),
        "): run on a machine with an NVIDIA GPU and driver, or use the CPU-only commands"));
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    return absl::FailedPreconditionError(
        absl::StrCat("cudaGetDeviceCount failed: ", CudaErrorText(e),
                     "; check that the NVIDIA driver is installed and loaded"));
  }
  return n;
}

absl::StatusOr<DeviceInfo> QueryDevice(int device) {
  absl::StatusOr<int> count = CountDevices();
  if (!count.ok()) return count.status();
  if (device < 0 || device >= *count) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device, " does not exist; this machine has ", *count));
  }
  cudaDeviceProp prop{};
  FS_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  DeviceInfo info;
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.cc = prop.major * 10 + prop.minor;
  info.l2_bytes = prop.l2CacheSize;
  info.memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  // CUDA 13 removed cudaDeviceProp::clockRate / memoryClockRate; the attributes remain (kHz).
  int khz = 0;
  FS_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device),
                          "cudaDeviceGetAttribute(ClockRate)");
  info.sm_clock_mhz = khz / 1000;
  FS_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device),
                          "cudaDeviceGetAttribute(MemoryClockRate)");
  info.memory_clock_mhz = khz / 1000;
  FS_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&info.memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth, device),
      "cudaDeviceGetAttribute(GlobalMemoryBusWidth)");
  int v = 0;
  FS_CUDA_RETURN_IF_ERROR(cudaRuntimeGetVersion(&v), "cudaRuntimeGetVersion");
  info.runtime_version = CudaVersionText(v);
  FS_CUDA_RETURN_IF_ERROR(cudaDriverGetVersion(&v), "cudaDriverGetVersion");
  info.driver_version = NvmlDriverVersion();
  if (info.driver_version.empty()) {
    info.driver_version = absl::StrCat("CUDA ", CudaVersionText(v), " driver API");
  }
  return info;
}

}  // namespace flashscope::profiler
