#include "profiler/nvtx_ranges.h"

#if defined(FLASHSCOPE_HAVE_CUDA)
#include <nvtx3/nvToolsExt.h>
#endif

namespace flashscope::profiler {

#if defined(FLASHSCOPE_HAVE_CUDA)
namespace {
nvtxDomainHandle_t Domain() {
  static nvtxDomainHandle_t domain = nvtxDomainCreateA("flashscope");
  return domain;
}
}  // namespace

NvtxRange::NvtxRange(const std::string& name) {
  nvtxEventAttributes_t attr = {};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = name.c_str();
  pushed_ = nvtxDomainRangePushEx(Domain(), &attr) >= 0;
}

NvtxRange::~NvtxRange() {
  if (pushed_) nvtxDomainRangePop(Domain());
}
#else
NvtxRange::NvtxRange(const std::string&) {}
NvtxRange::~NvtxRange() = default;
#endif

}  // namespace flashscope::profiler
