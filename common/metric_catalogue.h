// What each hardware metric flashscope collects means, in plain words: the friendly name, the
// hardware metric CUPTI evaluates, its unit, a short label for tables and a one-line description.
// Free of CUDA and of CUPTI, so that the profiler (which collects the metrics, profiler/
// metric_catalogue.h) and the reports (which explain them in every output, also for reports
// written before a metric record carried its description) read one table. Hardware names were
// checked with cuptiProfilerHostGetMetricProperties for GA100 and GH100 (CUDA 13.0);
// profiler/tests/cupti_host_test.cc keeps checking them.
#pragma once

#include <string>
#include <vector>

namespace flashscope {

struct MetricInfo {
  std::string name;     // friendly: "tensor_pipe_pct"; a raw metric keeps its hardware name
  std::string hw_name;  // what CUPTI evaluates: "sm__pipe_tensor_op_hmma_cycles_active.avg..."
  std::string unit;     // "%", "bytes", "instructions", "wavefronts", "conflicts", "ns", "Hz"
  std::string description;
  int min_cc = 80;    // compute capability x 10 at which the metric exists (0: unknown, raw)
  std::string label;  // short, for column headers and the viewer: "tensor %"
  // In the "basic" set (`--metrics basic`), and so a column of every case table.
  bool basic = false;
};

// Every catalogued metric, in display order.
inline const std::vector<MetricInfo>& MetricInfos() {
  static const std::vector<MetricInfo> kAll = {
      {"tensor_pipe_pct", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
       "%",
       "Tensor pipe busy, % of active SM cycles (HMMA from mma.sync; on sm_90 also HGMMA/QGMMA "
       "from wgmma)",
       80, "tensor %", true},
      {"mma_instructions", "sm__inst_executed_pipe_tensor_op_hmma.sum", "instructions",
       "Warp-level tensor instructions executed (HMMA; on sm_90 also HGMMA/QGMMA)", 80,
       "mma instr"},
      {"wgmma_instructions", "sm__inst_executed_pipe_tensor_op_gmma.sum", "instructions",
       "Warp-group MMA instructions executed (HGMMA/QGMMA/IGMMA/BGMMA, Hopper wgmma)", 90,
       "wgmma instr"},
      {"shared_pct", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
       "%",
       "Shared-memory data-stage throughput, % of peak over elapsed cycles (LDS/LDSM/STS/LDGSTS, "
       "and wgmma operand reads on sm_90)",
       80, "shared %", true},
      {"shared_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "wavefronts",
       "Shared-memory wavefronts processed; more wavefronts per request means bank conflicts", 80,
       "shared wavefronts"},
      {"shared_bank_conflicts_ld", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
       "conflicts", "Shared-memory bank conflicts of loads (LDS, LDSM)", 80, "smem ld conflicts"},
      {"shared_bank_conflicts_st", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
       "conflicts", "Shared-memory bank conflicts of stores (STS, STSM)", 80, "smem st conflicts"},
      {"dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%",
       "DRAM (HBM) throughput, % of peak over elapsed cycles", 80, "DRAM %", true},
      {"dram_bytes", "dram__bytes.sum", "bytes", "Bytes read from and written to DRAM", 80,
       "DRAM bytes"},
      {"l2_hit_rate", "lts__t_sector_hit_rate.pct", "%", "L2 sector lookups that hit, %", 80,
       "L2 hit %"},
      {"achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", "%",
       "Achieved occupancy: warps in flight, % of the SM's maximum, over active cycles", 80,
       "occupancy %", true},
      {"sm_throughput_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%",
       "SM throughput: the busiest SM sub-unit, % of its peak over elapsed cycles", 80, "SM %"},
      {"xu_pipe_pct", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "%",
       "XU pipe (special functions: exp2, rcp, rsqrt, sin) instruction rate, % of peak over "
       "active cycles",
       80, "XU %"},
      {"local_load_bytes", "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", "bytes",
       "Local-memory load bytes (register spills and stack arrays)", 80, "local ld bytes"},
      {"local_store_bytes", "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum", "bytes",
       "Local-memory store bytes (register spills and stack arrays)", 80, "local st bytes"},
      {"gpu_time", "gpu__time_duration.sum", "ns", "GPU time of the profiled range", 80,
       "GPU time ns"},
      {"sm_frequency", "smsp__cycles_elapsed.avg.per_second", "Hz",
       "SM clock during the profiled range (cycles elapsed per second)", 80, "SM Hz"},
  };
  return kAll;
}

// The entry whose hardware name is `hw_name` (when not empty), else whose friendly name is `name`;
// nullptr for a metric the catalogue does not know (a raw hardware metric).
inline const MetricInfo* FindMetricInfo(const std::string& name, const std::string& hw_name) {
  for (const MetricInfo& m : MetricInfos()) {
    if (!hw_name.empty() && m.hw_name == hw_name) return &m;
  }
  for (const MetricInfo& m : MetricInfos()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace flashscope
