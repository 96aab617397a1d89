# `cmake --install BUILD --prefix P` (docs/install.md):
#   P/bin/kbench, P/bin/kbench-worker          the controller finds the worker beside itself
#   P/share/kbench/{suites,prompts,problems,solutions}
#                                              the shipped suites, their paths rewritten to the layout
#   P/share/doc/kbench/                        README, LICENSE, docs/
#   P/include/kbench/, P/lib/libkbench_core.a,
#   P/lib/cmake/kbench/                        find_package(kbench) -> kbench::core
# The wheel (`pip install .`, scikit-build-core sets SKBUILD) installs the same bin/ and share/
# into the environment's scripts and data trees (a venv's bin/ and its root), so an installed
# kbench finds share/kbench beside its bin/ either way; the C++ library and headers stay out of it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(SKBUILD)
  set(KBENCH_BIN_DIR ${SKBUILD_SCRIPTS_DIR})
  set(KBENCH_SHARE_DIR ${SKBUILD_DATA_DIR}/${CMAKE_INSTALL_DATADIR}/kbench)
  set(KBENCH_DOC_DIR ${SKBUILD_DATA_DIR}/${CMAKE_INSTALL_DOCDIR})
  set(KBENCH_SUITES_DESTINATION "${KBENCH_SHARE_DIR}/suites")
else()
  set(KBENCH_BIN_DIR ${CMAKE_INSTALL_BINDIR})
  set(KBENCH_SHARE_DIR ${CMAKE_INSTALL_DATADIR}/kbench)
  set(KBENCH_DOC_DIR ${CMAKE_INSTALL_DOCDIR})
  # The prefix is the install step's (--prefix), not the configured one.
  set(KBENCH_SUITES_DESTINATION "\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${KBENCH_SHARE_DIR}/suites")
endif()

install(TARGETS kbench kbench-worker RUNTIME DESTINATION ${KBENCH_BIN_DIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/prompts DESTINATION ${KBENCH_SHARE_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/benchmarks/problems ${PROJECT_SOURCE_DIR}/benchmarks/solutions
        DESTINATION ${KBENCH_SHARE_DIR} PATTERN "__pycache__" EXCLUDE)
# In the checkout a suite reaches its problems as ../../benchmarks/problems/...; installed, the
# suites sit beside problems/ and solutions/, so the prefix of every such path becomes ../.
install(CODE "
  file(GLOB suites \"${PROJECT_SOURCE_DIR}/configs/suites/*.yaml\")
  set(destination \"${KBENCH_SUITES_DESTINATION}\")
  file(MAKE_DIRECTORY \"\${destination}\")
  foreach(suite IN LISTS suites)
    file(READ \"\${suite}\" text)
    string(REPLACE \"../../benchmarks/\" \"../\" text \"\${text}\")
    get_filename_component(name \"\${suite}\" NAME)
    message(STATUS \"Installing: \${destination}/\${name}\")
    file(WRITE \"\${destination}/\${name}\" \"\${text}\")
  endforeach()
")
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${KBENCH_DOC_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${KBENCH_DOC_DIR})
if(SKBUILD)
  return()
endif()

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
