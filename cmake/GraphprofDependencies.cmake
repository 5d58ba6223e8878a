# What graphprof builds against. Each dependency is looked up once here; the
# packages' CMakeLists.txt name only the imported targets.

find_package(Threads REQUIRED)

# LibTorch: Torch_DIR / CMAKE_PREFIX_PATH or the system's config first; then a
# Python's torch.utils.cmake_prefix_path, which is only used when the
# directory exists (Debian's python3-torch reports one that does not).
find_package(Torch QUIET)
if(NOT Torch_FOUND)
  execute_process(
    COMMAND "${GRAPHPROF_PYTHON}" -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
    OUTPUT_VARIABLE _graphprof_torch_prefix
    OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET
    RESULT_VARIABLE _graphprof_python_rc)
  if(_graphprof_python_rc EQUAL 0 AND IS_DIRECTORY "${_graphprof_torch_prefix}")
    message(STATUS "graphprof: LibTorch from ${GRAPHPROF_PYTHON}'s torch: ${_graphprof_torch_prefix}")
    find_package(Torch REQUIRED PATHS "${_graphprof_torch_prefix}" NO_DEFAULT_PATH)
  elseif(_graphprof_python_rc EQUAL 0)
    message(FATAL_ERROR "graphprof: LibTorch not found: no TorchConfig.cmake on CMAKE_PREFIX_PATH or the "
                        "system, and ${GRAPHPROF_PYTHON}'s torch.utils.cmake_prefix_path "
                        "(${_graphprof_torch_prefix}) does not exist. Set Torch_DIR.")
  else()
    message(FATAL_ERROR "graphprof: LibTorch not found: no TorchConfig.cmake on CMAKE_PREFIX_PATH or the "
                        "system, and ${GRAPHPROF_PYTHON} has no torch. Set Torch_DIR.")
  endif()
endif()
# LibTorch's imported targets carry its include directories and libraries but
# not its compile flags (the C++ ABI define): one interface target has both.
if(NOT TARGET graphprof_torch)
  add_library(graphprof_torch INTERFACE)
  target_link_libraries(graphprof_torch INTERFACE ${TORCH_LIBRARIES})
  target_include_directories(graphprof_torch INTERFACE ${TORCH_INCLUDE_DIRS})
  separate_arguments(_graphprof_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  target_compile_options(graphprof_torch INTERFACE ${_graphprof_torch_flags})
endif()
message(STATUS "graphprof: LibTorch ${Torch_VERSION} (${TORCH_INSTALL_PREFIX})")

find_package(absl REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(simdjson REQUIRED)

# CUDA parts (CUDA-event timer, CUPTI, NVTX): on by default when LibTorch was
# built with CUDA. On with a CPU LibTorch they are compiled and linked against
# the toolkit and report "no device" at run time, as Bazel's --config=cuda.
if(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES)
  set(GRAPHPROF_TORCH_HAS_CUDA ON)
else()
  set(GRAPHPROF_TORCH_HAS_CUDA OFF)
endif()
option(GRAPHPROF_WITH_CUDA "Compile the CUDA parts (needs the CUDA toolkit)" ${GRAPHPROF_TORCH_HAS_CUDA})
if(GRAPHPROF_WITH_CUDA)
  find_package(CUDAToolkit REQUIRED)
  if(NOT TARGET CUDA::cupti)
    message(FATAL_ERROR "graphprof: GRAPHPROF_WITH_CUDA needs CUPTI (CUDA::cupti), not found in ${CUDAToolkit_LIBRARY_ROOT}")
  endif()
endif()
message(STATUS "graphprof: CUDA parts ${GRAPHPROF_WITH_CUDA} (LibTorch with CUDA: ${GRAPHPROF_TORCH_HAS_CUDA})")
