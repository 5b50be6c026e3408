# `cmake --install`: the commands, the SDK headers and a relocatable CMake package
# (find_package(flashscope CONFIG)); docs/plugins.md lists what lands where. Included last from
# the top-level CMakeLists.txt, so that every target that may be installed exists by then.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FLASHSCOPE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/flashscope)

# The commands, whichever of them this configuration builds (no CUDA: flashscope alone; the
# viewer with FLASHSCOPE_VIEWER=ON). flashscope finds flashscope-worker beside itself.
foreach(command flashscope flashscope-worker flashscope-bench flashscope-view)
  if(TARGET ${command})
    install(TARGETS ${command} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT commands)
  endif()
endforeach()

# The demo plugin (kernels/demo/, built with CUDA): the kernels of the installed demo suite, in
# the plugin folder where its bare name "flashscope_demo_kernels" is looked up
# (suites/plugin_paths.h), so that `flashscope run demo` works from an installed prefix.
if(TARGET flashscope_demo_kernels)
  install(TARGETS flashscope_demo_kernels LIBRARY DESTINATION lib/flashscope/plugins
          COMPONENT commands)
endif()

# The suites that come with flashscope, as data: the commands' default suites folder is
# <their folder>/../share/flashscope/suites (common/install_layout.h). The build tree mirrors it
# with a link, so a command finds the suites the same way built or installed.
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/share/flashscope)
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/suites ${PROJECT_BINARY_DIR}/share/flashscope/suites SYMBOLIC)
file(GLOB FLASHSCOPE_SUITE_FILES ${PROJECT_SOURCE_DIR}/suites/*.json)
install(FILES ${FLASHSCOPE_SUITE_FILES} DESTINATION ${CMAKE_INSTALL_DATADIR}/flashscope/suites
        COMPONENT commands)

# flashscope::sdk: the plugin ABI headers.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/flashscope DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT sdk)
install(TARGETS fs_sdk EXPORT flashscopeSdkTargets COMPONENT sdk)
install(EXPORT flashscopeSdkTargets NAMESPACE flashscope:: DESTINATION ${FLASHSCOPE_INSTALL_CMAKEDIR}
        COMPONENT sdk)

# flashscope::reports: the report library, its headers under include/flashscope/reports and the
# common/ vocabulary they include under include/flashscope/common (a consumer includes
# "reports/report_json.h", as flashscope's own code does). Its own export set, loaded only for
# COMPONENTS reports, so that a plugin author needs neither Abseil nor nlohmann-json.
# The model and I/O (reports/), the analyses (analysis/) and the outputs (render/) are three
# libraries; flashscope::reports links all three, so a consumer names one target.
foreach(folder reports analysis render)
  file(GLOB headers ${PROJECT_SOURCE_DIR}/${folder}/*.h)
  install(FILES ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/flashscope/${folder}
          COMPONENT reports)
endforeach()
file(GLOB FLASHSCOPE_COMMON_HEADERS ${PROJECT_SOURCE_DIR}/common/*.h)
install(FILES ${FLASHSCOPE_COMMON_HEADERS}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/flashscope/common COMPONENT reports)
install(TARGETS fs_reports fs_analysis fs_render fs_reports_all EXPORT flashscopeReportsTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT reports)
install(EXPORT flashscopeReportsTargets NAMESPACE flashscope::
        DESTINATION ${FLASHSCOPE_INSTALL_CMAKEDIR} COMPONENT reports)

# The package: config, version, flashscope_add_plugin and the scripts it runs.
flashscope_abseil_lts_version(FLASHSCOPE_ABSL_LTS)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/flashscopeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/flashscopeConfig.cmake
  INSTALL_DESTINATION ${FLASHSCOPE_INSTALL_CMAKEDIR})
# 0.x: a minor release may break the ABI or the report library, so only the same minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/flashscopeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/flashscopeConfig.cmake
              ${PROJECT_BINARY_DIR}/package/flashscopeConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FlashscopePlugin.cmake
              ${PROJECT_SOURCE_DIR}/cmake/flashscope_plugin.map
              ${PROJECT_SOURCE_DIR}/cmake/GitRevision.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FlashscopeAbseil.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FlashscopeCompression.cmake
        DESTINATION ${FLASHSCOPE_INSTALL_CMAKEDIR} COMPONENT sdk)

# The examples, to copy from the installed tree as from the source tree.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/flashscope/examples
        COMPONENT sdk FILES_MATCHING PATTERN "build*" EXCLUDE PATTERN "CMakeLists.txt"
        PATTERN "*.md" PATTERN "*.json" PATTERN "*.h" PATTERN "*.cuh" PATTERN "*.cc" PATTERN "*.cu"
        PATTERN "*.sh" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                   WORLD_READ WORLD_EXECUTE)
