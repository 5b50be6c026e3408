// CUPTI's host side (cupti_profiler_host.h): metric names, properties, config images and the
// evaluation of counter data into metric values. It needs no GPU: with a chip name alone
// ("GA100", "GH100") it answers which metrics exist, which the CPU tests use to check the
// catalogue; with a counter availability image from a live device it builds config images.
#pragma once

#include <cupti_result.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct CUpti_Profiler_Host_Object;

namespace flashscope::profiler {

// "CUPTI_ERROR_INVALID_METRIC_NAME (...)" from cuptiGetResultString.
std::string CuptiResultText(CUptiResult r);

// The Status for a failed CUPTI call: names the call, the CUPTI error, and for the errors people
// meet in practice (counters not permitted, unsupported device, missing libraries) the fix.
absl::Status CuptiStatus(CUptiResult r, const std::string& what);

// The chip CUPTI's host tables use for a compute capability we catalogue: 80 -> "GA100",
// 90 -> "GH100"; empty for others (a live device gives its own name via cuptiDeviceGetChipName).
std::string ReferenceChipForCc(int cc);

struct MetricProperties {
  std::string description;
  std::string hw_unit;   // "sm", "dram", "l1tex", ...
  std::string dim_unit;  // "percent", "byte", ...
};

class CuptiMetricHost {
 public:
  // `counter_availability` may be empty for name queries; config images need it.
  static absl::StatusOr<std::unique_ptr<CuptiMetricHost>> Create(
      const std::string& chip, const std::vector<uint8_t>& counter_availability = {});
  ~CuptiMetricHost();
  CuptiMetricHost(const CuptiMetricHost&) = delete;
  CuptiMetricHost& operator=(const CuptiMetricHost&) = delete;

  const std::string& chip() const { return chip_; }

  absl::StatusOr<MetricProperties> Properties(const std::string& hw_name);

  // OK when CUPTI knows every name; else InvalidArgument listing each unknown name.
  absl::Status CheckMetrics(const std::vector<std::string>& hw_names);

  // The config image for these metrics. One call per host object: CUPTI's host object does not
  // recover from a rejected name (so CheckMetrics first), and it adds the metrics of each call to
  // those of the calls before, so a second image holds the first one's metrics too
  // (profiler_cupti_host_test, CuptiHostImages).
  absl::StatusOr<std::vector<uint8_t>> ConfigImage(const std::vector<std::string>& hw_names);

  // Replay passes a config image needs.
  static absl::StatusOr<int> NumPasses(std::vector<uint8_t>& config_image);

  // Metric values of range `range_index` of a decoded counter data image, in `hw_names` order.
  absl::StatusOr<std::vector<double>> Evaluate(const std::vector<uint8_t>& counter_data,
                                               size_t range_index,
                                               const std::vector<std::string>& hw_names);

 private:
  CuptiMetricHost(std::string chip, CUpti_Profiler_Host_Object* object)
      : chip_(std::move(chip)), object_(object) {}
  std::string chip_;
  CUpti_Profiler_Host_Object* object_;
};

}  // namespace flashscope::profiler
