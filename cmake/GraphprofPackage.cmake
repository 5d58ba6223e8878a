# graphprof_package(<name> SOURCES <.cc ...> [DEPS <targets ...>]
#                   [OPTIMIZED <.cc ...>] [DEFINES <source>=<define> ...])
#
# One Bazel package as one static library graphprof_<name>, known to
# consumers as graphprof::<name>. Headers are included from the repository
# root ("ir/loader.h"), as in Bazel; installed, from include/graphprof.
# OPTIMIZED sources are compiled with -O2 in every build type (Bazel's
# copts = ["-O2"] on the same files: their hot loops are measured). DEFINES
# adds a preprocessor define to one source (Bazel's local_defines).
function(graphprof_package name)
  cmake_parse_arguments(P "" "" "SOURCES;DEPS;OPTIMIZED;DEFINES" ${ARGN})
  set(target graphprof_${name})
  add_library(${target} STATIC ${P_SOURCES})
  add_library(graphprof::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME graphprof_${name})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:include/graphprof>)
  target_link_libraries(${target} PUBLIC ${P_DEPS})
  target_compile_options(${target} PRIVATE -Wall -Wno-sign-compare -Wno-unused-parameter)
  if(P_OPTIMIZED)
    # Not with the precompiled header (made at the build's -O level).
    set_source_files_properties(${P_OPTIMIZED} PROPERTIES COMPILE_OPTIONS "-O2" SKIP_PRECOMPILE_HEADERS ON)
    list(REMOVE_ITEM P_SOURCES ${P_OPTIMIZED})
  endif()
  graphprof_use_torch_pch(${target} ${P_SOURCES})
  foreach(pair IN LISTS P_DEFINES)
    string(REPLACE "=" ";" parts "${pair}")
    list(GET parts 0 source)
    list(SUBLIST parts 1 -1 define)
    string(JOIN "=" define ${define})
    set_property(SOURCE ${source} APPEND PROPERTY COMPILE_DEFINITIONS ${define})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY GRAPHPROF_PACKAGES ${target})
endfunction()
