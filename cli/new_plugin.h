// `flashscope new-plugin NAME`: the files of a minimal plugin project that builds against the
// installed package (find_package(flashscope)), with one correct kernel of a family, a suite that
// loads it, a CPU test of its kernel table and a README (docs/plugins.md, "From scratch").
// Text generation only: cmd_new_plugin.cc writes the files; the kernels, CMake files and tests
// come from the template files of cli/plugin_templates/ (new_plugin_files.cc).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace flashscope::cli {

struct PluginProject {
  std::string name;        // checked by PluginNameProblem: the plugin, its target and its id prefix
  bool attention = false;  // the family: attention_fwd, else gemm
  bool python = false;     // a Python module, else a CUDA plugin
  std::string flashscope_version;  // "0.1.0": the package version find_package asks for
};

struct ProjectFile {
  std::string path;  // relative to the project folder
  std::string text;
};

// "" when `name` can name a plugin project, else why not and what would: a lowercase letter,
// then lowercase letters, digits and '_' (it is a C identifier, a CMake target, a Python module
// and the prefix of the kernel id), at most 40 characters, not "test" (that id prefix is
// reserved for flashscope's own test kernels) nor "flashscope".
std::string PluginNameProblem(const std::string& name);

// The kernel's id: NAME.attn_v1 or NAME.gemm_v1.
std::string KernelId(const PluginProject& p);

std::vector<ProjectFile> PluginProjectFiles(const PluginProject& p);

// Writes the project into `folder`, which must not exist yet (FailedPrecondition otherwise, so
// that nothing of a user's is overwritten); on a failure midway, nothing is left behind.
absl::Status WritePluginProject(const std::string& folder, const std::vector<ProjectFile>& files);

// The kernel, CMake and test files of each kind of project (new_plugin_files.cc), with @NAME@,
// @ID@, @VERSION@ (major.minor), @FAMILY@ and @ABI_FAMILY@ still in them.
std::vector<ProjectFile> CudaProjectTemplates(bool attention);
std::vector<ProjectFile> PythonProjectTemplates(bool attention);

}  // namespace flashscope::cli
