# cmake --install: headers under include/graphprof (included as in the tree,
# "profilers/profiler.h"), the packages' static libraries, profile_graph, and
# lib/cmake/graphprof/graphprofConfig.cmake, so that a consumer writes
#   find_package(graphprof REQUIRED)
#   target_link_libraries(app PRIVATE graphprof::profilers)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

foreach(dir common ir ir/compiled interpreter profilers profilers/compiled profilers/report profilers/work profilers/autograd profilers/toolbox
            profilers/session profilers/verification
            profilers/gpu tools tools/zoo)
  file(GLOB _headers ${PROJECT_SOURCE_DIR}/${dir}/*.h)
  install(FILES ${_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/graphprof/${dir})
endforeach()

get_property(_packages GLOBAL PROPERTY GRAPHPROF_PACKAGES)
install(TARGETS ${_packages} graphprof_torch EXPORT graphprofTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/graphprof)
install(TARGETS profile_graph profile_graph_full RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT graphprofTargets NAMESPACE graphprof:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/graphprof)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/graphprofConfig.cmake.in
  ${PROJECT_BINARY_DIR}/graphprofConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/graphprof)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/graphprofConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/graphprofConfig.cmake ${PROJECT_BINARY_DIR}/graphprofConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/graphprof)
