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
  else()
    set(labels cpu)
  endif()
  gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_MODE PRE_TEST
                       PROPERTIES LABELS "${labels}"
                       WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()
