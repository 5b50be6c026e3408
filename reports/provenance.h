// Where a report's kernels came from, in words every output shares (`show`, `compare`, the HTML
// report, the viewer's case view): flashscope's own ("built-in") or a plugin file with its name,
// version and content hash (docs/plugins.md, "Provenance").
#pragma once

#include <string>
#include <vector>

#include "reports/report.h"

namespace flashscope::reports {

// "built-in (flashscope 3f2c1ab)" or "my-attention 3f2c1ab-dirty (/x/libfoo.so, sha256
// 9f86d081884c...)"; with `full_hash` the whole SHA-256.
std::string DescribeProvenance(const ProvenanceRecord& p, bool full_hash = false);

struct PluginUse {
  ProvenanceRecord provenance;
  int cases = 0;
};
// The distinct provenances of a report's cases, in order of first appearance; empty for reports
// written before provenance was recorded.
std::vector<PluginUse> PluginsOf(const Report& report);

// "" when both cases' kernels came from the same file (or either side does not say); else what
// changed, e.g. "my-attention 1.0 (sha256 111...) -> my-attention 1.1 (sha256 222...)".
std::string ProvenanceChange(const CaseResult& base, const CaseResult& next);

}  // namespace flashscope::reports
