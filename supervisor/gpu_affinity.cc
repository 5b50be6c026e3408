#include "supervisor/gpu_affinity.h"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <fstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace flashscope::suites {
namespace {

constexpr int kMaxCpu = CPU_SETSIZE;  // what sched_setaffinity's fixed set can name

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < kMaxCpu; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace

std::optional<std::vector<int>> ParseCpuList(const std::string& text) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  if (trimmed.empty()) return std::nullopt;
  std::vector<int> cpus;
  for (absl::string_view part : absl::StrSplit(trimmed, ',')) {
    std::vector<absl::string_view> ends = absl::StrSplit(part, absl::MaxSplits('-', 1));
    int lo = 0, hi = 0;
    if (!absl::SimpleAtoi(ends[0], &lo) || lo < 0) return std::nullopt;
    hi = lo;
    if (ends.size() == 2 && (!absl::SimpleAtoi(ends[1], &hi) || hi < lo)) return std::nullopt;
    if (hi >= kMaxCpu) return std::nullopt;
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string SysfsPciName(const std::string& bus_id) {
  // DOMAIN:BUS:DEVICE.FUNCTION, the domain 4 or 8 hex digits.
  std::vector<std::string> parts = absl::StrSplit(bus_id, ':');
  if (parts.size() != 3) return "";
  std::string domain = parts[0];
  if (domain.size() == 8 && domain.compare(0, 4, "0000") == 0) domain = domain.substr(4);
  const std::string& bus = parts[1];
  const std::string& rest = parts[2];  // DEVICE.FUNCTION
  auto hex = [](const std::string& s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
  };
  const size_t dot = rest.find('.');
  if (domain.size() != 4 || bus.size() != 2 || dot != 2 || rest.size() != 4 || !hex(domain) ||
      !hex(bus) || !hex(rest.substr(0, 2)) || !hex(rest.substr(3))) {
    return "";
  }
  std::string name = absl::StrCat(domain, ":", bus, ":", rest);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

std::vector<int> CpusNearGpu(const std::string& bus_id, const std::string& sysfs_root) {
  const std::string name = SysfsPciName(bus_id);
  if (name.empty()) return {};
  std::ifstream in(absl::StrCat(sysfs_root, "/bus/pci/devices/", name, "/local_cpulist"));
  std::string text;
  if (!in || !std::getline(in, text)) return {};
  const std::optional<std::vector<int>> local = ParseCpuList(text);
  if (!local) return {};
  const std::vector<int> allowed = AllowedCpus();
  std::vector<int> near;
  std::set_intersection(local->begin(), local->end(), allowed.begin(), allowed.end(),
                        std::back_inserter(near));
  return near;
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    absl::StrAppend(&out, out.empty() ? "" : ",", cpus[i]);
    if (j > i) absl::StrAppend(&out, "-", cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace flashscope::suites
