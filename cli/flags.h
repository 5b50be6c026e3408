// Flags shared by the subcommands (defined in main.cc).
#pragma once

#include <string>

#include "absl/flags/declare.h"

ABSL_DECLARE_FLAG(std::string, kernels);
ABSL_DECLARE_FLAG(std::string, out);
ABSL_DECLARE_FLAG(std::string, dump);
ABSL_DECLARE_FLAG(std::string, metrics);
ABSL_DECLARE_FLAG(std::string, resume);
ABSL_DECLARE_FLAG(double, case_timeout_s);
ABSL_DECLARE_FLAG(double, deadline_s);
ABSL_DECLARE_FLAG(std::string, sanitize);
ABSL_DECLARE_FLAG(std::string, shard);
ABSL_DECLARE_FLAG(std::string, suites_dir);
ABSL_DECLARE_FLAG(bool, color);
ABSL_DECLARE_FLAG(bool, quiet);
ABSL_DECLARE_FLAG(bool, all);
ABSL_DECLARE_FLAG(int, cc);
// compare, gate, render (cmd_gate.cc).
ABSL_DECLARE_FLAG(double, alpha);
ABSL_DECLARE_FLAG(double, min_effect);
ABSL_DECLARE_FLAG(bool, force);
ABSL_DECLARE_FLAG(std::string, format);
ABSL_DECLARE_FLAG(std::string, policy);
ABSL_DECLARE_FLAG(std::string, json);
