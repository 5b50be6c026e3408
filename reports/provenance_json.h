// Internal to the report JSON code (like json_fields.h): a case's provenance record, shared by the
// case reader (report_json.cc) and the plan (plan_json.cc), where each plugin is one.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "reports/json_fields.h"
#include "reports/report.h"

namespace flashscope::reports {

jsonio::Json ProvenanceToJson(const ProvenanceRecord& p);
void ReadProvenance(const jsonio::Json& j, const std::string& path, absl::Status* st,
                    ProvenanceRecord* p);

}  // namespace flashscope::reports
