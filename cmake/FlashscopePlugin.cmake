# flashscope_add_plugin(NAME SOURCES file... [CUDA_ARCHITECTURES arch...])
#
# Builds a flashscope kernel plugin: a MODULE library NAME.so that `flashscope run|list --plugin`
# loads (docs/plugins.md). Installed with the CMake package (find_package(flashscope CONFIG)) and
# used by flashscope's own build alike.
#  - Links flashscope::sdk (include "flashscope/kernel_abi.h").
#  - Exports the entry symbol flashscope_plugin_v1 and nothing else: hidden visibility for the
#    plugin's own code and a linker version script for what static libraries bring in (cudart,
#    CUTLASS...), so two plugins never bind to each other's symbols inside one worker.
#  - CUDA sources: the static CUDA runtime, so the plugin loads whatever runtime flashscope itself
#    uses; CUDA_ARCHITECTURES sets the GPUs compiled for (else CMAKE_CUDA_ARCHITECTURES).
#  - Generates flashscope_plugin_version.h with FLASHSCOPE_PLUGIN_VERSION, the short git revision
#    of the calling project's source folder at build time ("-dirty" with uncommitted changes,
#    "unknown" outside git): hand it to fs_plugin.version so every case names the build it ran.

# Files beside this one; CMAKE_CURRENT_LIST_DIR means the caller's folder inside the function.
set(_FLASHSCOPE_PLUGIN_SUPPORT_DIR ${CMAKE_CURRENT_LIST_DIR})

function(flashscope_add_plugin name)
  cmake_parse_arguments(PLUGIN "" "" "SOURCES;CUDA_ARCHITECTURES" ${ARGN})
  if(NOT PLUGIN_SOURCES)
    message(FATAL_ERROR "flashscope_add_plugin(${name}): no SOURCES given")
  endif()
  if(PLUGIN_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "flashscope_add_plugin(${name}): unexpected arguments "
                        "'${PLUGIN_UNPARSED_ARGUMENTS}' (SOURCES and CUDA_ARCHITECTURES only)")
  endif()
  add_library(${name} MODULE ${PLUGIN_SOURCES})
  target_link_libraries(${name} PRIVATE flashscope::sdk)
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    OUTPUT_NAME ${name}
    POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CUDA" IN_LIST languages)
    set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Static
                                             CUDA_SEPARABLE_COMPILATION OFF)
    if(PLUGIN_CUDA_ARCHITECTURES)
      set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${PLUGIN_CUDA_ARCHITECTURES}")
    endif()
  elseif(PLUGIN_CUDA_ARCHITECTURES)
    message(FATAL_ERROR "flashscope_add_plugin(${name}): CUDA_ARCHITECTURES given but CUDA is not "
                        "enabled: add CUDA to project(... LANGUAGES CXX CUDA)")
  endif()
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    set(map ${_FLASHSCOPE_PLUGIN_SUPPORT_DIR}/flashscope_plugin.map)
    target_link_options(${name} PRIVATE "LINKER:--version-script=${map}" "LINKER:--exclude-libs,ALL")
    set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS ${map})
  endif()

  set(generated ${CMAKE_CURRENT_BINARY_DIR}/${name}_generated)
  add_custom_target(${name}_version
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}
            -DOUT_FILE=${generated}/flashscope_plugin_version.h -DMACRO=FLASHSCOPE_PLUGIN_VERSION
            -P ${_FLASHSCOPE_PLUGIN_SUPPORT_DIR}/GitRevision.cmake
    BYPRODUCTS ${generated}/flashscope_plugin_version.h
    COMMENT "flashscope: ${name}'s version from git")
  add_dependencies(${name} ${name}_version)
  target_include_directories(${name} PRIVATE ${generated})
endfunction()
