# `cmake --install build --prefix P` and `cpack -G DEB`: what an installed mgen is.
#   P/bin             mgen, mgen-cc, mgen-cxx (tools/CMakeLists.txt installs the wrappers)
#   P/lib             libmgen.so, libmgen_rank.a, libmgen-preload.so (always lib/: mgen finds the
#                     recorder as ../lib/libmgen-preload.so, programs find mgen as ../bin/mgen)
#   P/include/mgen    mgen.h, mpix.h
#   P/share/mgen      configs/*.toml (`mgen -c NAME`), mgen-unsupported.txt, mgen-check.sh
#   P/share/doc/mgen  README.md and docs/
#   P/lib/cmake/mgen  mgenConfig.cmake: find_package(mgen CONFIG), mgen::mgen, mgen_add_program()
# Everything is found relative to the executables and libraries, so a relocated prefix works.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MGEN_INSTALL_LIBDIR lib)
set(MGEN_INSTALL_CMAKEDIR ${MGEN_INSTALL_LIBDIR}/cmake/mgen)
set(MGEN_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/mgen)

set_target_properties(mgen_cli PROPERTIES INSTALL_RPATH "\$ORIGIN/../${MGEN_INSTALL_LIBDIR}")
install(TARGETS mgen_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS mgen mgen_preload LIBRARY DESTINATION ${MGEN_INSTALL_LIBDIR})
install(TARGETS mgen_rank ARCHIVE DESTINATION ${MGEN_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/wrappers/mgen/include/mgen DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs DESTINATION ${MGEN_INSTALL_DATADIR} FILES_MATCHING PATTERN "*.toml")
install(FILES ${PROJECT_BINARY_DIR}/mgen-unsupported.txt DESTINATION ${MGEN_INSTALL_DATADIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# The package: imported targets over the installed files (cmake/mgenConfig.cmake.in) and the
# same mgen_add_program() the build tree uses.
file(RELATIVE_PATH MGEN_CMAKEDIR_TO_PREFIX /${MGEN_INSTALL_CMAKEDIR} /)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mgenConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/mgenConfig.cmake INSTALL_DESTINATION ${MGEN_INSTALL_CMAKEDIR}
                              NO_SET_AND_CHECK_MACRO NO_CHECK_REQUIRED_COMPONENTS_MACRO)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/mgenConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/mgenConfig.cmake ${PROJECT_BINARY_DIR}/cmake/mgenConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/mgenTargets.cmake ${PROJECT_SOURCE_DIR}/cmake/MgenProgram.cmake
        DESTINATION ${MGEN_INSTALL_CMAKEDIR})

# cpack -G DEB (in the build directory): a .deb installing under /usr.
set(CPACK_PACKAGE_NAME mgen)
set(CPACK_PACKAGE_VENDOR "mgen")
set(CPACK_PACKAGE_CONTACT "mgen developers <mgen@invalid>")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "predicts the performance of MPI applications on a modelled machine")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "mgen runs MPI programs recompiled with mgen-cc, recorded traces and NAS skeletons as fibers on one "
       "computer and predicts their time on a machine it models (network topology, routing, MPI protocols, "
       "collectives).")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Runtime: libmgen's and mgen's libraries; mgen-cc compiles against MPICH's mpi.h and links with
# the system compiler; --check disassembles with binutils; `mgen record` runs MPICH's mpiexec.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libboost-context1.74.0, libfmt9, libtomlplusplus3, libstdc++6, libmpich-dev, mpich, gcc | c-compiler, binutils")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++, gnuplot-nox")
include(CPack)
