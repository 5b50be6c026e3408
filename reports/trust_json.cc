#include "reports/trust_json.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace flashscope::reports {
namespace {

using jsonio::Fields;
using jsonio::IndexPath;
using jsonio::Json;
using jsonio::Need;
using jsonio::Number;

Json CheckToJson(const TrustCheckRecord& c) {
  Json values = Json::array();
  for (const TrustValue& v : c.values) {
    values.push_back({{"name", v.name}, {"value", Number(v.value)}, {"unit", v.unit}});
  }
  return {{"check", c.check},
          {"status", c.status},
          {"rule", c.rule},
          {"values", std::move(values)},
          {"findings", c.findings}};
}

Json ActivityToJson(const ActivityRecord& a) {
  return {{"kind", a.kind},
          {"name", a.name},
          {"stream", a.stream},
          {"start_us", Number(a.start_us)},
          {"end_us", Number(a.end_us)},
          {"bytes", a.bytes},
          {"synchronous", a.synchronous}};
}

bool KnownStatus(const std::string& s) {
  return s == "passed" || s == "failed" || s == "off" || s == "info";
}

void ReadCheck(const Json& j, const std::string& path, absl::Status* st, TrustCheckRecord* c) {
  Fields f(j, path, st);
  f.Get("check", &c->check, Need::kRequired);
  f.Get("status", &c->status, Need::kRequired);
  if (f.ok() && !KnownStatus(c->status)) {
    f.Fail(f.PathOf("status"), absl::StrCat("unknown trust check status \"", c->status,
                                            "\" (expected passed, failed, off or info)"));
  }
  f.Get("rule", &c->rule);
  if (const Json* a = f.Array("values")) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      Fields v((*a)[i], IndexPath(f.PathOf("values"), i), st);
      TrustValue value;
      v.Get("name", &value.name, Need::kRequired);
      v.Get("value", &value.value, Need::kRequired);
      v.Get("unit", &value.unit);
      c->values.push_back(std::move(value));
    }
  }
  if (const Json* a = f.Array("findings")) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      if (!(*a)[i].is_string()) {
        f.Fail(IndexPath(f.PathOf("findings"), i), "expected a string");
        return;
      }
      c->findings.push_back((*a)[i].get<std::string>());
    }
  }
}

void ReadLaunch(const Json& j, const std::string& path, absl::Status* st, TimedLaunchRecord* l) {
  Fields f(j, path, st);
  f.Get("launch", &l->launch, Need::kRequired);
  f.Get("input_set", &l->input_set);
  f.Get("poisoned_before", &l->poisoned_before);
  f.Get("bad", &l->bad);
  f.Get("never_written", &l->never_written);
  f.Get("max_abs", &l->max_abs);
  f.Get("kind", &l->kind);
  f.Get("rows", &l->rows);
  f.Get("bad_rows", &l->bad_rows);
  f.Get("lse_bad", &l->lse_bad);
  f.Get("input_seed", &l->input_seed);
}

void ReadActivity(const Json& j, const std::string& path, absl::Status* st, ActivityRecord* a) {
  Fields f(j, path, st);
  f.Get("kind", &a->kind, Need::kRequired);
  f.Get("name", &a->name);
  f.Get("stream", &a->stream);
  f.Get("start_us", &a->start_us);
  f.Get("end_us", &a->end_us);
  f.Get("bytes", &a->bytes);
  f.Get("synchronous", &a->synchronous);
}

}  // namespace

Json TrustToJson(const TrustRecord& t) {
  Json checks = Json::array();
  for (const TrustCheckRecord& c : t.checks) checks.push_back(CheckToJson(c));
  Json launches = Json::array();
  for (const TimedLaunchRecord& l : t.failed_launches) {
    launches.push_back({{"launch", l.launch},
                        {"input_set", l.input_set},
                        {"poisoned_before", l.poisoned_before},
                        {"bad", l.bad},
                        {"never_written", l.never_written},
                        {"max_abs", Number(l.max_abs)},
                        {"kind", l.kind},
                        {"rows", l.rows},
                        {"bad_rows", l.bad_rows},
                        {"lse_bad", l.lse_bad},
                        {"input_seed", l.input_seed}});
  }
  Json activity = Json::array();
  for (const ActivityRecord& a : t.activity) activity.push_back(ActivityToJson(a));
  return {{"checks", std::move(checks)},
          {"input_sets", t.input_sets},
          {"failed_launches", std::move(launches)},
          {"launch_stream", t.launch_stream},
          {"activity", std::move(activity)},
          {"wall_s", Number(t.wall_s)}};
}

void ReadTrust(const Json& j, const std::string& path, absl::Status* st, TrustRecord* t) {
  Fields f(j, path, st);
  if (const Json* a = f.Array("checks", Need::kRequired)) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      TrustCheckRecord c;
      ReadCheck((*a)[i], IndexPath(f.PathOf("checks"), i), st, &c);
      t->checks.push_back(std::move(c));
    }
  }
  f.Get("input_sets", &t->input_sets);
  if (const Json* a = f.Array("failed_launches")) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      TimedLaunchRecord l;
      ReadLaunch((*a)[i], IndexPath(f.PathOf("failed_launches"), i), st, &l);
      t->failed_launches.push_back(l);
    }
  }
  f.Get("launch_stream", &t->launch_stream);
  if (const Json* a = f.Array("activity")) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      ActivityRecord r;
      ReadActivity((*a)[i], IndexPath(f.PathOf("activity"), i), st, &r);
      t->activity.push_back(std::move(r));
    }
  }
  f.Get("wall_s", &t->wall_s);
}

}  // namespace flashscope::reports
