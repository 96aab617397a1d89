# `cmake --install BUILD --prefix P` (docs/install.md):
#   P/bin/kbench, P/bin/kbench-worker          the controller finds the worker beside itself
#   P/share/kbench/{suites,prompts,problems,solutions}
#                                              the shipped suites, their paths rewritten to the layout
#   P/share/doc/kbench/                        README, LICENSE, docs/
#   P/include/kbench/, P/lib/libkbench_core.a,
#   P/lib/cmake/kbench/                        find_package(kbench) -> kbench::core
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS kbench kbench-worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(KBENCH_SHARE_DIR ${CMAKE_INSTALL_DATADIR}/kbench)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/prompts DESTINATION ${KBENCH_SHARE_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/benchmarks/problems ${PROJECT_SOURCE_DIR}/benchmarks/solutions
        DESTINATION ${KBENCH_SHARE_DIR} PATTERN "__pycache__" EXCLUDE)
# In the checkout a suite reaches its problems as ../../benchmarks/problems/...; installed, the
# suites sit beside problems/ and solutions/, so the prefix of every such path becomes ../.
install(CODE "
  file(GLOB suites \"${PROJECT_SOURCE_DIR}/configs/suites/*.yaml\")
  set(destination \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${KBENCH_SHARE_DIR}/suites\")
  file(MAKE_DIRECTORY \"\${destination}\")
  foreach(suite IN LISTS suites)
    file(READ \"\${suite}\" text)
    string(REPLACE \"../../benchmarks/\" \"../\" text \"\${text}\")
    get_filename_component(name \"\${suite}\" NAME)
    message(STATUS \"Installing: \${destination}/\${name}\")
    file(WRITE \"\${destination}/\${name}\" \"\${text}\")
  endforeach()
")
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The library for other C++ projects: kbench_core (suites, model and codec, reports, the run
# session and the process controller; no torch, no Python) and its headers.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kbench
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/lib/generated/version/kbench_version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kbench)
install(TARGETS kbench_core kbench_dep_yaml EXPORT kbenchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kbench)
install(EXPORT kbenchTargets NAMESPACE kbench:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kbench)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kbenchConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/kbenchConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kbench)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kbenchConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kbenchConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/kbenchConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kbench)
