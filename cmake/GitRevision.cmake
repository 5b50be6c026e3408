# Run at build time (not configure time) so that a report names the commit its binary was built
# from: writes OUT_FILE with the macro MACRO (default FLASHSCOPE_GIT_REVISION) holding the short
# revision of the git tree at SOURCE_DIR, "-dirty" when the tree had changes, "unknown" outside
# git, and touches it only when the text changes (no needless rebuilds). Installed with the CMake
# package: flashscope_add_plugin stamps a plugin's version with it.
if(NOT MACRO)
  set(MACRO FLASHSCOPE_GIT_REVISION)
endif()
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT rev)
  set(rev unknown)
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(dirty)
    set(rev "${rev}-dirty")
  endif()
endif()
set(text "#pragma once\n#define ${MACRO} \"${rev}\"\n")
if(EXISTS ${OUT_FILE})
  file(READ ${OUT_FILE} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT_FILE} "${text}")
endif()
