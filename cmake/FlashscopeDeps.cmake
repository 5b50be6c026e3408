# Third-party dependencies, all from Debian's packages (scripts/install-deps.sh).

find_package(nlohmann_json 3.10 REQUIRED)
find_package(Threads REQUIRED)

# Abseil is linked statically: the GPU machine's image has no Abseil, and a binary linked to
# Debian's shared Abseil does not start there, while one with the static archives does.
# Debian's absl CMake targets point at the shared objects, so the archives are grouped here.
file(GLOB FLASHSCOPE_ABSL_ARCHIVES
     /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/libabsl_*.a /usr/lib/libabsl_*.a)
if(NOT FLASHSCOPE_ABSL_ARCHIVES)
  message(FATAL_ERROR "flashscope: Abseil static archives not found; run scripts/install-deps.sh "
                      "(Debian package libabsl-dev)")
endif()
add_library(fs_absl INTERFACE)
target_link_libraries(fs_absl INTERFACE -Wl,--start-group ${FLASHSCOPE_ABSL_ARCHIVES}
                                        -Wl,--end-group Threads::Threads)
