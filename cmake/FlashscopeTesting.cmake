# Tests live beside the code they test (FOLDER/tests/*_test.cc). GPU tests get the ctest label
# `gpu`: CI (no GPU) runs `ctest -LE gpu` and reports how many it skipped; the device runs
# `ctest -L gpu`.
if(FLASHSCOPE_TESTS)
  enable_testing()
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

# flashscope_add_test(NAME SOURCES a.cc b.cc LIBS x y [GPU])
function(flashscope_add_test name)
  if(NOT FLASHSCOPE_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "GPU" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE FLASHSCOPE_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  if(T_GPU)
    set(labels gpu)
    # The GPU tests this build has, for scripts/gpu-tests.sh on a machine without the CMake tree:
    # there a missing binary is a failure, not a smaller count (flashscope_write_gpu_test_list).
    file(RELATIVE_PATH dir ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR})
    set_property(GLOBAL APPEND PROPERTY FLASHSCOPE_GPU_TESTS "${dir}/${name}")
  else()
    set(labels cpu)
  endif()
  gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_MODE PRE_TEST
                       PROPERTIES LABELS "${labels}"
                       WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()

# Writes BUILD/gpu_tests.txt, one GPU test binary per line (relative to the build folder); called
# once every folder has added its tests.
function(flashscope_write_gpu_test_list)
  get_property(tests GLOBAL PROPERTY FLASHSCOPE_GPU_TESTS)
  list(SORT tests)
  list(JOIN tests "\n" text)
  file(WRITE ${PROJECT_BINARY_DIR}/gpu_tests.txt "${text}\n")
endfunction()

# flashscope_add_report_tests(PREFIX name... [LIBS lib...]): the tests of a folder that builds on
# reports (reports/, analysis/, render/): PREFIX_<name>_test from tests/<name>_test.cc with the
# sample reports (FS_REPORTS_SAMPLES), linking the outputs (every one of those tests may print what
# it checks) and LIBS, told where the committed test data (FS_REPORTS_TESTDATA) and runs
# (results/runs) are.
function(flashscope_add_report_tests prefix)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "LIBS")
  foreach(t ${arg_UNPARSED_ARGUMENTS})
    flashscope_add_test(${prefix}_${t}_test SOURCES tests/${t}_test.cc ${FS_REPORTS_SAMPLES}
                        LIBS fs_render ${arg_LIBS} GTest::gmock)
    if(TARGET ${prefix}_${t}_test)
      target_compile_definitions(${prefix}_${t}_test PRIVATE
                                 FS_REPORTS_TESTDATA="${FS_REPORTS_TESTDATA}"
                                 FS_REPORTS_RUNS="${PROJECT_SOURCE_DIR}/results/runs")
    endif()
  endforeach()
endfunction()
