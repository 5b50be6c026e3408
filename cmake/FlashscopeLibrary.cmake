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

# flashscope_add_installed_library(NAME EXPORT_NAME export OUTPUT_NAME file SOURCES src...
#                                  [LIBS lib...])
#
# One of the CPU libraries installed with the CMake package (cmake/FlashscopeInstall.cmake): the
# report model and its I/O, the analyses, the outputs. Position-independent, since a consumer may
# link it into a shared library (a Python extension, a plugin of its own); the include root is the
# repository in the build tree and include/flashscope in an installed one. LIBS link PUBLIC.
function(flashscope_add_installed_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "EXPORT_NAME;OUTPUT_NAME" "SOURCES;LIBS")
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_EXPORT_NAME OR NOT arg_OUTPUT_NAME)
    message(FATAL_ERROR "flashscope_add_installed_library(${name}): needs EXPORT_NAME, "
                        "OUTPUT_NAME and SOURCES; unknown: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  add_library(${name} STATIC ${arg_SOURCES})
  target_link_libraries(${name} PUBLIC ${arg_LIBS})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/flashscope>)
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${arg_EXPORT_NAME}
                                           OUTPUT_NAME ${arg_OUTPUT_NAME}
                                           POSITION_INDEPENDENT_CODE ON)
endfunction()
