# Abseil, linked statically: the GPU machine's image has no Abseil, and a binary linked to Debian's
# shared Abseil does not start there, while one with the static archives does. Debian's absl CMake
# targets point at the shared objects, so the archives are found and grouped here.
#
# One file for flashscope's own build and for the installed package (flashscope::reports links
# Abseil the same way in a consumer's build), so both resolve Abseil alike.

# flashscope_link_static_abseil(TARGET): TARGET (an INTERFACE library, imported or not) links every
# Abseil archive as one group, plus Threads. Searched in FLASHSCOPE_ABSL_LIBRARY_DIR, then in
# lib/<arch> and lib of each CMake prefix.
function(flashscope_link_static_abseil target)
  set(dirs ${FLASHSCOPE_ABSL_LIBRARY_DIR})
  foreach(prefix IN LISTS CMAKE_PREFIX_PATH CMAKE_SYSTEM_PREFIX_PATH)
    if(CMAKE_LIBRARY_ARCHITECTURE)
      list(APPEND dirs ${prefix}/lib/${CMAKE_LIBRARY_ARCHITECTURE})
    endif()
    list(APPEND dirs ${prefix}/lib)
  endforeach()
  list(REMOVE_DUPLICATES dirs)
  foreach(dir IN LISTS dirs)
    file(GLOB archives ${dir}/libabsl_*.a)
    if(archives)
      break()
    endif()
  endforeach()
  if(NOT archives)
    message(FATAL_ERROR "flashscope: Abseil static archives (libabsl_*.a) not found; install "
                        "Debian's libabsl-dev (scripts/install-deps.sh) or set "
                        "FLASHSCOPE_ABSL_LIBRARY_DIR to the folder that holds them")
  endif()
  find_package(Threads REQUIRED)
  target_link_libraries(${target} INTERFACE -Wl,--start-group ${archives} -Wl,--end-group
                                            Threads::Threads)
endfunction()

# flashscope_abseil_lts_version(OUT_VAR): the ABSL_LTS_RELEASE_VERSION of the Abseil headers this
# build sees (e.g. 20220623), or "" when there is none. Abseil's symbols live in a namespace named
# after it, so a library compiled against one LTS release does not link with another.
function(flashscope_abseil_lts_version out_var)
  find_path(FLASHSCOPE_ABSL_INCLUDE_DIR absl/base/config.h)
  set(version "")
  if(FLASHSCOPE_ABSL_INCLUDE_DIR)
    file(STRINGS ${FLASHSCOPE_ABSL_INCLUDE_DIR}/absl/base/config.h line
         REGEX "^#define ABSL_LTS_RELEASE_VERSION [0-9]+")
    string(REGEX REPLACE "^#define ABSL_LTS_RELEASE_VERSION ([0-9]+).*" "\\1" version "${line}")
  endif()
  set(${out_var} "${version}" PARENT_SCOPE)
endfunction()
