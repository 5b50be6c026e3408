// The kernel, CMake and test files of `flashscope new-plugin`'s projects, put together from the
// template files of cli/plugin_templates/ (embedded at build time by embed.cmake). The kernels
// are simple and correct, not fast. CUDA: one thread per element of C through 16x16
// shared-memory tiles (gemm), one thread per query row with an fp32 online softmax (attention),
// for every dtype of the ABI. Python: torch in fp32, imported inside the kernel, so that the
// module is listed and planned where torch is missing.
#include <string>

#include "cli/new_plugin.h"
#include "cli/plugin_templates.h"  // generated: plugin_templates/embed.cmake

namespace flashscope::cli {

namespace t = templates;

std::vector<ProjectFile> CudaProjectTemplates(bool attention) {
  const std::string source =
      std::string(t::kTemplate_cuda_head_cu) + "\n" +
      (attention ? t::kTemplate_cuda_attention_cu : t::kTemplate_cuda_gemm_cu) + "\n" +
      t::kTemplate_cuda_tail_cu;
  const std::string test =
      std::string(t::kTemplate_cuda_test_head_cc) + "\n" +
      (attention ? t::kTemplate_cuda_test_attention_cc : t::kTemplate_cuda_test_gemm_cc) + "\n" +
      t::kTemplate_cuda_test_main_cc;
  return {{"CMakeLists.txt", t::kTemplate_cuda_CMakeLists_txt},
          {"@NAME@.cu", source},
          {"tests/table_test.cc", test}};
}

std::vector<ProjectFile> PythonProjectTemplates(bool attention) {
  const std::string test =
      std::string(t::kTemplate_python_test_head_py) + "\n" +
      (attention ? t::kTemplate_python_test_attention_py : t::kTemplate_python_test_gemm_py);
  return {{"CMakeLists.txt", t::kTemplate_python_CMakeLists_txt},
          {"@NAME@.py", attention ? t::kTemplate_python_attention_py : t::kTemplate_python_gemm_py},
          {"tests/test_@NAME@.py", test}};
}

}  // namespace flashscope::cli
