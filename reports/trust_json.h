// JSON of a case's trust record (docs/report-schema.md, "trust"): internal to report_json.cc,
// kept apart so that each file stays small.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "reports/json_fields.h"
#include "reports/report.h"

namespace flashscope::reports {

jsonio::Json TrustToJson(const TrustRecord& t);
void ReadTrust(const jsonio::Json& j, const std::string& path, absl::Status* st, TrustRecord* t);

}  // namespace flashscope::reports
