# Installation (`cmake --install build --prefix P`), the CMake package (find_package(mpimon)) and
# the Debian package (cpack -G DEB). Installed mpimon finds everything relative to its own
# executable (harness/include/mpimon/harness/locations.hpp):
#   P/bin                    mpimon, mpimon-merge
#   P/libexec/mpimon         the programs mpimon launches, the PMPI libraries it preloads
#   P/LIBDIR                 libmpimon-collect.so, libmpimon-reorder.so, the libraries of analysis/
#                            (libmpimon_*.a), cmake/mpimon/
#   P/include/mpimon         their headers, one folder per library (base, matrices, overhead_design, models,
#                            checks, placement, results), and reorder.h (the C API of libmpimon-reorder)
#   P/share/mpimon           plotting scripts, the report's template and plotly.js, docs/defects.md

# The data directory, staged in the build tree as in the prefix, on every build.
add_custom_target(mpimon_data ALL
  COMMAND ${CMAKE_COMMAND} -DSOURCE=${PROJECT_SOURCE_DIR} -DDEST=${PROJECT_BINARY_DIR}/${CMAKE_INSTALL_DATADIR}/mpimon
          -P ${PROJECT_SOURCE_DIR}/cmake/stage_data.cmake
  COMMENT "Staging mpimon's data files")
install(DIRECTORY ${PROJECT_BINARY_DIR}/${CMAKE_INSTALL_DATADIR}/mpimon/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mpimon
        COMPONENT runtime)

install(TARGETS mpimon mpimon-merge RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
# Every target declared with mpimon_launched (CMakeLists.txt) where it is defined: the MPI parts,
# the gate's probe (valgrind) and the SMPI programs (SimGrid) exist only where they are built.
get_property(mpimon_launched GLOBAL PROPERTY MPIMON_LAUNCHED)
if(mpimon_launched)
  install(TARGETS ${mpimon_launched} RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/mpimon COMPONENT runtime
                                     LIBRARY DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/mpimon COMPONENT runtime)
endif()
if(TARGET mpimon_collect)
  install(TARGETS mpimon_collect LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
endif()
# libmpimon-reorder.so: preloaded by `mpimon run --reorder`, linked by applications that call
# mpimon_reorder (find_package(mpimon COMPONENTS reorder), mpimon::reorder: needs MPI alone).
if(TARGET mpimon_reorder)
  install(TARGETS mpimon_reorder EXPORT mpimonReorderTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT runtime)
  install(FILES ${PROJECT_SOURCE_DIR}/reorder/include/mpimon/reorder.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mpimon
          COMPONENT dev)
  install(EXPORT mpimonReorderTargets NAMESPACE mpimon:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mpimon
          COMPONENT dev)
endif()

# The CMake package: one target per library of analysis/ with its headers, in two export sets, so
# that a project reading matrices (find_package(mpimon COMPONENTS matrices), mpimon::matrices) needs
# HDF5 alone; the other libraries (models, placement, results, and mpimon::analysis, all of them)
# also need Boost and hwloc (cmake/mpimonConfig.cmake.in).
include(CMakePackageConfigHelpers)
set(mpimon_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/mpimon)
install(TARGETS mpimon_base mpimon_matrices EXPORT mpimonMatricesTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        COMPONENT dev)
install(TARGETS mpimon_overhead_design mpimon_models mpimon_checks mpimon_placement mpimon_results mpimon_analysis EXPORT mpimonTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
foreach(library IN ITEMS base matrices overhead_design models checks placement results)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/analysis/${library}/include/mpimon DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          COMPONENT dev FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(DIRECTORY ${PROJECT_BINARY_DIR}/analysis/base/generated/mpimon DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev FILES_MATCHING PATTERN "*.hpp")
install(EXPORT mpimonMatricesTargets NAMESPACE mpimon:: DESTINATION ${mpimon_cmake_dir} COMPONENT dev)
install(EXPORT mpimonTargets NAMESPACE mpimon:: DESTINATION ${mpimon_cmake_dir} COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mpimonConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/mpimonConfig.cmake INSTALL_DESTINATION ${mpimon_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mpimonConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mpimonConfig.cmake ${PROJECT_BINARY_DIR}/mpimonConfigVersion.cmake
        DESTINATION ${mpimon_cmake_dir} COMPONENT dev)

# The Debian packages (cpack -G DEB in the build directory): mpimon (the commands, the programs
# they launch, the data) and mpimon-dev (the CMake package). Shared libraries found by
# dpkg-shlibdeps; what mpimon runs (mpirun, ompi_info, python3 and its plotting modules) declared;
# what a single command runs suggested (valgrind: mpimon gate; hpcc: mpimon bench app -- hpcc).
# ci/debian-package.sh installs it into a clean Debian 12 root and runs the main job there.
set(CPACK_PACKAGE_NAME mpimon)
set(CPACK_PACKAGE_VENDOR mpimon)
set(CPACK_PACKAGE_CONTACT "mpimon maintainers <mpimon@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME mpimon)
# python3-munkres, before matplotlib, only steers apt: Debian 12's python3-fonttools (a dependency
# of matplotlib) wants "python3-scipy | python3-munkres", and apt, left to itself, takes scipy, which
# pulls in a C++ compiler and the Boost headers (58 more packages, about 600 MB, on a minbase root).
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS
    "openmpi-bin, python3, python3-munkres, python3-matplotlib, python3-h5py, python3-numpy")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "valgrind, hpcc")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME mpimon-dev)
# Reading matrices needs HDF5 alone; the other libraries of the package also need Boost, hwloc and
# Scotch and METIS, and the reorder component MPI's headers (recommended, so apt installs them
# unless told not to).
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "mpimon (= ${PROJECT_VERSION}), libhdf5-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS
    "libboost-dev, libhwloc-dev, libscotch-dev, libmetis-dev, libopenmpi-dev, pkgconf | pkg-config")
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS OFF)
include(CPack)

if(MPIMON_ENABLE_TESTING)
  # The CMake package used by a project of its own (docs/example-consumer) on real dumps.
  # Skipped (77) in a sanitized build: its library would need a sanitized consumer.
  # With MPI, the reorder component's consumer too (2 processes).
  if(MPIMON_ENABLE_MPI)
    set(consumer_mpi MPI PROCESSORS 2 ENVIRONMENT MPIMON_CONSUMER_MPI=1)
  endif()
  mpimon_add_script_test(NAME install.cmake_package SCRIPT ${PROJECT_SOURCE_DIR}/cli/tests/example_consumer_test.sh
                         ARGS ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} "${MPIMON_SANITIZER}"
                         LABELS install cli TIMEOUT 600 ${consumer_mpi})
  if(MPIMON_ENABLE_MPI)
    # Installed, moved, no path of the trees inside, run from the prefix with the trees hidden.
    mpimon_add_script_test(NAME install.relocatable SCRIPT ${PROJECT_SOURCE_DIR}/cli/tests/install_test.sh
                           ARGS ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} LABELS install cli MPI PROCESSORS 4
                           TIMEOUT 900)
  endif()
endif()
