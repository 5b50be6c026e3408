# flashscope_add_library(NAME SOURCES src... [CUDA_SOURCES src...] [LIBS lib...] [CUDA_LIBS lib...])
#
# One of the project's static libraries, whose folder is a part that builds without CUDA and a part
# that needs it (DESIGN.md: the CPU part is always built and tested in CI; the CUDA part only where
# nvcc is found). SOURCES and LIBS always; CUDA_SOURCES and CUDA_LIBS only with CUDA. Everything
# links PUBLIC, and the repository root is the include root ("profiler/timing.h"), which
# scripts/check_layering.py then polices. Anything else a library needs (private links, compile
# options) is added by its CMakeLists after the call.
function(flashscope_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;CUDA_SOURCES;LIBS;CUDA_LIBS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "flashscope_add_library(${name}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  add_library(${name} STATIC ${arg_SOURCES})
  target_link_libraries(${name} PUBLIC ${arg_LIBS})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  if(FLASHSCOPE_HAVE_CUDA)
    target_sources(${name} PRIVATE ${arg_CUDA_SOURCES})
    target_link_libraries(${name} PUBLIC ${arg_CUDA_LIBS})
  endif()
endfunction()
