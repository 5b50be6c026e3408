// JSON of a run's plan (reports/plan.h); each plugin's provenance is the case record's
// (reports/report_fields.h).
#include "absl/strings/str_cat.h"
#include "common/problem_params.h"
#include "reports/json_fields.h"
#include "reports/plan.h"
#include "reports/report_fields.h"

namespace flashscope::reports {
namespace {

using jsonio::Fields;
using jsonio::IndexPath;
using jsonio::Json;
using jsonio::Need;

Json KernelInfoToJson(const KernelInfo& k) {
  return {{"id", k.id},
          {"family", std::string(FamilyName(k.family))},
          {"revision", k.revision},
          {"title", k.title},
          {"changed", k.changed},
          {"min_sm", k.min_sm},
          {"exact_sm", k.exact_sm},
          {"tile",
           {{"block_m", k.tile.block_m},
            {"block_n", k.tile.block_n},
            {"block_k", k.tile.block_k},
            {"threads", k.tile.threads}}},
          {"peer", k.is_peer},
          {"idempotent", k.idempotent},
          {"test_only", k.test_only}};
}

void ReadFamily(Fields& f, const char* key, Family* out) {
  std::string name;
  f.Get(key, &name, Need::kRequired);
  if (!f.ok()) return;
  if (auto family = ParseFamily(name)) {
    *out = *family;
  } else {
    f.Fail(f.PathOf(key),
           absl::StrCat("unknown family \"", name, "\" (expected attention_fwd or gemm)"));
  }
}

void ReadKernelInfo(const Json& j, const std::string& path, absl::Status* st, KernelInfo* k) {
  Fields f(j, path, st);
  f.Get("id", &k->id, Need::kRequired);
  ReadFamily(f, "family", &k->family);
  f.Get("revision", &k->revision);
  f.Get("title", &k->title);
  f.Get("changed", &k->changed);
  f.Get("min_sm", &k->min_sm);
  f.Get("exact_sm", &k->exact_sm);
  if (const Json* t = f.Object("tile")) {
    Fields tile(*t, f.PathOf("tile"), st);
    tile.Get("block_m", &k->tile.block_m);
    tile.Get("block_n", &k->tile.block_n);
    tile.Get("block_k", &k->tile.block_k);
    tile.Get("threads", &k->tile.threads);
  }
  f.Get("peer", &k->is_peer);
  f.Get("idempotent", &k->idempotent);
  f.Get("test_only", &k->test_only);
}

void ReadCase(const Json& j, const std::string& path, absl::Status* st, PlannedCaseRecord* c) {
  Fields f(j, path, st);
  f.Get("index", &c->index, Need::kRequired);
  f.Get("key", &c->key, Need::kRequired);
  f.Get("kernel_id", &c->kernel_id, Need::kRequired);
  f.Get("error", &c->error);
  Family family = Family::kAttentionFwd;
  ReadFamily(f, "family", &family);
  std::map<std::string, std::string> params;
  f.Get("problem", &params, Need::kRequired);
  if (!f.ok()) return;
  std::string why;
  if (auto problem = ProblemFromParams(family, params, &why)) {
    c->problem = *problem;
  } else {
    f.Fail(f.PathOf("problem"), why);
    return;
  }
  if (c->key != c->kernel_id + " " + ProblemKey(c->problem)) {
    f.Fail(f.PathOf("key"), absl::StrCat("\"", c->key,
                                         "\" is not kernel_id + \" \" + the "
                                         "problem's key (\"",
                                         ProblemKey(c->problem), "\")"));
  }
}

}  // namespace

Json PlanToJson(const PlanRecord& plan) {
  Json plugins = Json::array(), lost = Json::array(), kernels = Json::array(),
       cases = Json::array();
  for (const auto& p : plan.plugins) plugins.push_back(jsonio::WriteRecord(p));
  for (const auto& l : plan.lost_plugins) lost.push_back({{"path", l.path}, {"reason", l.reason}});
  for (const auto& k : plan.kernels) {
    kernels.push_back({{"kernel", KernelInfoToJson(k.info)}, {"plugin", k.plugin}});
  }
  for (const auto& c : plan.cases) {
    Json j = {{"index", c.index},
              {"key", c.key},
              {"kernel_id", c.kernel_id},
              {"family", std::string(FamilyName(FamilyOf(c.problem)))},
              {"problem", ProblemParams(c.problem)}};
    if (!c.error.empty()) j["error"] = c.error;
    cases.push_back(std::move(j));
  }
  return {{"suite_path", plan.suite_path},         {"suite_sha256", plan.suite_sha256},
          {"kernels_filter", plan.kernels_filter}, {"shard", plan.shard},
          {"plugins", std::move(plugins)},         {"lost_plugins", std::move(lost)},
          {"kernels", std::move(kernels)},         {"cases", std::move(cases)}};
}

absl::StatusOr<PlanRecord> PlanFromJson(const Json& j) {
  PlanRecord plan;
  absl::Status st;
  Fields f(j, "", &st);
  f.Get("suite_path", &plan.suite_path, Need::kRequired);
  f.Get("suite_sha256", &plan.suite_sha256);
  f.Get("kernels_filter", &plan.kernels_filter);
  f.Get("shard", &plan.shard);
  if (const Json* a = f.Array("plugins")) {
    for (size_t i = 0; i < a->size() && st.ok(); ++i) {
      jsonio::ReadRecord((*a)[i], IndexPath("plugins", i), &st, &plan.plugins.emplace_back());
    }
  }
  if (const Json* a = f.Array("lost_plugins")) {
    for (size_t i = 0; i < a->size() && st.ok(); ++i) {
      Fields l((*a)[i], IndexPath("lost_plugins", i), &st);
      LostPluginRecord& r = plan.lost_plugins.emplace_back();
      l.Get("path", &r.path, Need::kRequired);
      l.Get("reason", &r.reason, Need::kRequired);
    }
  }
  if (const Json* a = f.Array("kernels")) {
    for (size_t i = 0; i < a->size() && st.ok(); ++i) {
      Fields k((*a)[i], IndexPath("kernels", i), &st);
      PlannedKernelRecord& r = plan.kernels.emplace_back();
      if (const Json* info = k.Object("kernel", Need::kRequired)) {
        ReadKernelInfo(*info, k.PathOf("kernel"), &st, &r.info);
      }
      k.Get("plugin", &r.plugin, Need::kRequired);
      if (k.ok() && (r.plugin < 0 || r.plugin >= static_cast<int>(plan.plugins.size()))) {
        k.Fail(k.PathOf("plugin"), absl::StrCat("no plugin ", r.plugin, " in \"plugins\""));
      }
    }
  }
  if (const Json* a = f.Array("cases", Need::kRequired)) {
    for (size_t i = 0; i < a->size() && st.ok(); ++i) {
      ReadCase((*a)[i], IndexPath("cases", i), &st, &plan.cases.emplace_back());
    }
  }
  if (!st.ok()) return st;
  return plan;
}

}  // namespace flashscope::reports
