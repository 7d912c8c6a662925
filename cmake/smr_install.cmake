# Install rules: the headers, the exported smr::smr target with smrConfig.cmake and
# smrConfigVersion.cmake, and the pkg-config file smr.pc. smr is header-only, so the CMake and
# pkg-config files go under share/ (architecture-independent; both tools search there).
include(CMakePackageConfigHelpers)

set(SMR_INSTALL_CMAKEDIR ${CMAKE_INSTALL_DATADIR}/cmake/smr
    CACHE STRING "Where smrConfig.cmake is installed, relative to the prefix")
set(SMR_INSTALL_PKGCONFIGDIR ${CMAKE_INSTALL_DATADIR}/pkgconfig
    CACHE STRING "Where smr.pc is installed, relative to the prefix")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/smr
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(TARGETS smr EXPORT smrTargets)
install(EXPORT smrTargets NAMESPACE smr:: DESTINATION ${SMR_INSTALL_CMAKEDIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/smrConfig.cmake.in
  ${PROJECT_BINARY_DIR}/smrConfig.cmake
  INSTALL_DESTINATION ${SMR_INSTALL_CMAKEDIR})
# While the major version is 0 every minor release may break the interface (semantic
# versioning), so find_package(smr 0.2) accepts 0.2.x only; from 1.0 on, any 1.y >= the request.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(smr_compatibility SameMinorVersion)
else()
  set(smr_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/smrConfigVersion.cmake
  COMPATIBILITY ${smr_compatibility}
  ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/smrConfig.cmake ${PROJECT_BINARY_DIR}/smrConfigVersion.cmake
        DESTINATION ${SMR_INSTALL_CMAKEDIR})

# smr.pc locates its prefix from its own directory (${pcfiledir}), so the installed tree still
# works after `cmake --install --prefix` elsewhere or when moved.
if(IS_ABSOLUTE "${SMR_INSTALL_PKGCONFIGDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(smr_pc_prefix ${CMAKE_INSTALL_PREFIX})
  set(smr_pc_includedir ${CMAKE_INSTALL_FULL_INCLUDEDIR})
else()
  file(RELATIVE_PATH smr_pc_up /prefix/${SMR_INSTALL_PKGCONFIGDIR} /prefix)
  string(REGEX REPLACE "/$" "" smr_pc_up "${smr_pc_up}")
  set(smr_pc_prefix "\${pcfiledir}/${smr_pc_up}")
  set(smr_pc_includedir "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/smr.pc.in ${PROJECT_BINARY_DIR}/smr.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/smr.pc DESTINATION ${SMR_INSTALL_PKGCONFIGDIR})
