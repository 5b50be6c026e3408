# The three compression libraries behind compressed reports (reports/compression.cc), found the
# same way by flashscope's own build and by a consumer of the installed flashscope::reports
# (flashscopeConfig.cmake includes this file). CMake ships FindLibLZMA and FindZLIB; libzstd has no
# CMake module in Debian's libzstd-dev, so it is found here by header and library, as the imported
# target flashscope_zstd.
find_package(LibLZMA REQUIRED)
find_package(ZLIB REQUIRED)
if(NOT TARGET flashscope_zstd)
  find_path(FLASHSCOPE_ZSTD_INCLUDE_DIR zstd.h)
  find_library(FLASHSCOPE_ZSTD_LIBRARY NAMES zstd)
  if(NOT FLASHSCOPE_ZSTD_INCLUDE_DIR OR NOT FLASHSCOPE_ZSTD_LIBRARY)
    message(FATAL_ERROR "libzstd not found: install libzstd-dev (scripts/install-deps.sh)")
  endif()
  add_library(flashscope_zstd UNKNOWN IMPORTED)
  set_target_properties(flashscope_zstd PROPERTIES IMPORTED_LOCATION "${FLASHSCOPE_ZSTD_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${FLASHSCOPE_ZSTD_INCLUDE_DIR}")
endif()
