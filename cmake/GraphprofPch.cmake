# One precompiled <torch/script.h>, shared by every graphprof target whose
# sources include it (GRAPHPROF_PCH, default ON with GCC or Clang).
#
# Why: a translation unit that includes torch/script.h spends 10-15 s of its
# ~30 s (ASan, -O1 -g1, this project's 2-core machine) parsing LibTorch's
# headers; with the precompiled header it takes ~20 s. 72 of the build's 133
# translation units include it. Measured on interpreter/interpreter.cc:
# 27-35 s plain, 19-21 s with the header precompiled (docs/ci.md).
#
# Which sources get it: those that include torch/script.h, directly or
# through the project's own headers (found by following quoted includes from
# the repository root, once per header, at configure time). The others
# (Abseil- and JSON-only code: common/, profilers/report/, ...) would pay
# ~5 s to load LibTorch's parsed headers they never use, so they are
# compiled as before. The precompiled header is force-included first; Bazel
# (the main build) compiles every file without it, so a missing include still
# fails there.
#
# ccache (tools/device_check.sh) caches the header and the compiles that use
# it when CCACHE_SLOPPINESS has pch_defines,time_macros (set there).
option(GRAPHPROF_PCH "Precompile torch/script.h once for the sources that include it" ON)
if(GRAPHPROF_PCH AND NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set(GRAPHPROF_PCH OFF)
endif()

# graphprof_torch_pch_owners(<name> [PIE_ONLY]): the target that owns the
# precompiled header for the targets of this directory and those below that
# call graphprof_use_torch_pch afterwards, compiled with this directory's
# options (GCC refuses a precompiled header made with other options: tests/
# makes its own when its sources are compiled without the sanitizers). GCC
# also refuses one made with another -fPIC / -fPIE setting ("created and used
# with different settings of -fpie"), so one owner serves one setting: <name>
# (-fPIC) by default, and the executables using it compile their sources
# -fPIC too (position-independent code links into a PIE executable; a second
# header compile for -fPIE took ~50 s of the 2.6 CI step for two sources,
# profile_graph_full.cc and gpu_check.cc). PIE_ONLY: <name>_pie (-fPIE)
# instead, and the static and object libraries using it are compiled -fPIE:
# they must link only into executables.
function(graphprof_torch_pch_owners name)
  cmake_parse_arguments(O "PIE_ONLY" "" "" ${ARGN})
  if(NOT GRAPHPROF_PCH)
    return()
  endif()
  set(owner ${name})
  if(O_PIE_ONLY)
    set(owner ${name}_pie)
  endif()
  add_library(${owner} OBJECT ${PROJECT_SOURCE_DIR}/cmake/torch_pch.cc)
  target_link_libraries(${owner} PRIVATE graphprof_torch)
  target_precompile_headers(${owner} PRIVATE <torch/script.h>)
  if(O_PIE_ONLY)
    set_target_properties(${owner} PROPERTIES POSITION_INDEPENDENT_CODE OFF)
    target_compile_options(${owner} PRIVATE -fPIE)
  else()
    set_target_properties(${owner} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
  set(GRAPHPROF_PCH_OWNER ${name} PARENT_SCOPE)
endfunction()
if(GRAPHPROF_PCH)
  graphprof_torch_pch_owners(graphprof_torch_pch)
  message(STATUS "graphprof: torch/script.h precompiled once for the sources that include it (GRAPHPROF_PCH)")
endif()

# Sets <out> to TRUE when <file> includes torch/script.h, directly or through
# quoted project headers ("ir/loader.h", relative to the repository root).
function(_graphprof_includes_script file out)
  get_property(known GLOBAL PROPERTY "GRAPHPROF_INCLUDES_SCRIPT:${file}" SET)
  if(known)
    get_property(result GLOBAL PROPERTY "GRAPHPROF_INCLUDES_SCRIPT:${file}")
    set(${out} ${result} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY "GRAPHPROF_INCLUDES_SCRIPT:${file}" FALSE)  # include cycles end here
  set(result FALSE)
  if(EXISTS ${file})
    file(STRINGS ${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]+[<\"]")
    foreach(line IN LISTS includes)
      if(line MATCHES "<torch/script\\.h>")
        set(result TRUE)
        break()
      endif()
      if(line MATCHES "\"([^\"]+)\"" AND EXISTS ${PROJECT_SOURCE_DIR}/${CMAKE_MATCH_1})
        _graphprof_includes_script(${PROJECT_SOURCE_DIR}/${CMAKE_MATCH_1} nested)
        if(nested)
          set(result TRUE)
          break()
        endif()
      endif()
    endforeach()
  endif()
  set_property(GLOBAL PROPERTY "GRAPHPROF_INCLUDES_SCRIPT:${file}" ${result})
  set(${out} ${result} PARENT_SCOPE)
endfunction()

# graphprof_use_torch_pch(<target> <source> ...): the shared precompiled
# header (of the owners GRAPHPROF_PCH_OWNER names: the last
# graphprof_torch_pch_owners call of this directory or one above) for those
# of <target>'s C++ sources that include torch/script.h.
function(graphprof_use_torch_pch target)
  if(NOT GRAPHPROF_PCH)
    return()
  endif()
  set(using FALSE)
  foreach(source IN LISTS ARGN)
    if(NOT source MATCHES "\\.cc$")
      continue()
    endif()
    get_filename_component(path ${source} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    _graphprof_includes_script(${path} includes)
    if(includes)
      set(using TRUE)
    else()
      set_source_files_properties(${source} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
  if(using)
    get_target_property(type ${target} TYPE)
    if(NOT TARGET ${GRAPHPROF_PCH_OWNER})  # PIE_ONLY owners
      if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|OBJECT_LIBRARY)$")
        message(FATAL_ERROR "${target}: a ${type} cannot use ${GRAPHPROF_PCH_OWNER}_pie (PIE_ONLY)")
      endif()
      set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE OFF)
      target_compile_options(${target} PRIVATE -fPIE)
      target_precompile_headers(${target} REUSE_FROM ${GRAPHPROF_PCH_OWNER}_pie)
    else()
      if(type STREQUAL "EXECUTABLE")  # -fPIC as the owner (CMake gives executables -fPIE)
        set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE OFF)
        target_compile_options(${target} PRIVATE -fPIC)
      endif()
      target_precompile_headers(${target} REUSE_FROM ${GRAPHPROF_PCH_OWNER})
    endif()
  endif()
endfunction()
