# Run at build time (not configure time) so that a report names the commit its binary was built
# from: writes OUT_FILE with FLASHSCOPE_GIT_REVISION, "-dirty" when the tree had changes, and
# touches it only when the text changes (no needless rebuilds).
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
set(text "#pragma once\n#define FLASHSCOPE_GIT_REVISION \"${rev}\"\n")
if(EXISTS ${OUT_FILE})
  file(READ ${OUT_FILE} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT_FILE} "${text}")
endif()
