# ctest's cmake_consumer_test: installs this build into a fresh prefix, then
# configures, builds and runs examples/cmake_consumer against it, as a C++
# project that embeds graphprof would (find_package(graphprof)).
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... [-DSANITIZE_FLAGS=...] -P cmake_consumer_test.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(JOIN " " command ${ARGN})
    message(FATAL_ERROR "cmake_consumer_test: failed (${rc}): ${command}")
  endif()
endfunction()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
if(NOT EXISTS "${WORK_DIR}/prefix/lib/cmake/graphprof/graphprofConfig.cmake")
  message(FATAL_ERROR "cmake_consumer_test: no lib/cmake/graphprof/graphprofConfig.cmake in the installed prefix")
endif()
# A sanitized build's libraries need the sanitizer's runtime in the consumer.
set(flags)
if(SANITIZE_FLAGS)
  string(JOIN " " joined ${SANITIZE_FLAGS})
  set(flags "-DCMAKE_CXX_FLAGS=${joined}" "-DCMAKE_EXE_LINKER_FLAGS=${joined}")
endif()
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/cmake_consumer" -B "${WORK_DIR}/consumer" -G Ninja
    "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" ${flags})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
run("${WORK_DIR}/consumer/consumer")
