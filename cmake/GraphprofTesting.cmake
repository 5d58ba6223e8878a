# graphprof_add_test(NAME <name> COMMAND <command> [args...]
#                    [WORKING_DIRECTORY <dir>] [ENVIRONMENT <VAR=value>...])
#
# Every ctest entry of graphprof is registered through this: the test runs
# through cmake/fresh_tmpdir.sh, which gives it a fresh, empty TEST_TMPDIR
# (<build>/testtmp/<name>) on every run, as Bazel does; so ctest, ctest -R
# and tools/device_check.sh can run again in the same build tree and see
# what the first run saw. Each test has a time limit (TIMEOUT,
# GRAPHPROF_TEST_TIMEOUT seconds): a test that hangs fails instead of
# holding ctest forever. Tests run with OMP_NUM_THREADS=1: LibTorch 2.x
# (OpenMP) defaults to one intra-op thread per core, 1.13 (Debian's) to one,
# and a test that sets no thread count measures the same on both.
set(GRAPHPROF_TEST_TIMEOUT 900 CACHE STRING "seconds a ctest entry may run before it fails")
set(GRAPHPROF_FRESH_TMPDIR ${CMAKE_CURRENT_LIST_DIR}/fresh_tmpdir.sh)

function(graphprof_add_test)
  cmake_parse_arguments(T "" "NAME;WORKING_DIRECTORY" "COMMAND;ENVIRONMENT" ${ARGN})
  set(tmp ${PROJECT_BINARY_DIR}/testtmp/${T_NAME})
  set(where)
  if(T_WORKING_DIRECTORY)
    set(where WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
  endif()
  add_test(NAME ${T_NAME} COMMAND ${GRAPHPROF_FRESH_TMPDIR} ${tmp} ${T_COMMAND} ${where})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${GRAPHPROF_TEST_TIMEOUT}
                                            ENVIRONMENT "OMP_NUM_THREADS=1;${T_ENVIRONMENT}")
endfunction()
