# External baselines (bench/external, docs/smrbench.md "External baselines"): the reclaimers of
# liburcu, Concurrency Kit and libcds behind smr's concept, for smrbench and their stress test.
# Each library's adapters are built when the library is found (Debian: liburcu-dev, libck-dev,
# libcds-dev; scripts/setup.sh installs them); a missing one is reported here and refused by
# smrbench by name with what to install. Target smr_external carries the definitions, include
# path and libraries.
option(SMR_EXTERNAL_BASELINES "Build the external baselines whose libraries are installed" ON)

add_library(smr_external INTERFACE)
target_include_directories(smr_external INTERFACE ${PROJECT_SOURCE_DIR}/bench)
set(smr_external_built "")

if(SMR_EXTERNAL_BASELINES)
  find_path(SMR_URCU_INCLUDE_DIR urcu/urcu-memb.h PATH_SUFFIXES ${CMAKE_LIBRARY_ARCHITECTURE})
  find_library(SMR_URCU_MEMB_LIB urcu-memb)
  find_library(SMR_URCU_QSBR_LIB urcu-qsbr)
  find_library(SMR_URCU_COMMON_LIB urcu-common)
  if(SMR_URCU_INCLUDE_DIR AND SMR_URCU_MEMB_LIB AND SMR_URCU_QSBR_LIB AND SMR_URCU_COMMON_LIB)
    target_compile_definitions(smr_external INTERFACE SMR_EXTERNAL_URCU=1)
    target_include_directories(smr_external SYSTEM INTERFACE ${SMR_URCU_INCLUDE_DIR})
    target_link_libraries(smr_external INTERFACE ${SMR_URCU_MEMB_LIB} ${SMR_URCU_QSBR_LIB} ${SMR_URCU_COMMON_LIB})
    list(APPEND smr_external_built "liburcu")
  endif()

  find_path(SMR_CK_INCLUDE_DIR ck_epoch.h)
  find_library(SMR_CK_LIB ck)
  if(SMR_CK_INCLUDE_DIR AND SMR_CK_LIB)
    # ck's headers are C only: the adapter calls a small C shim.
    enable_language(C)
    add_library(smr_ck_epoch_shim STATIC ${PROJECT_SOURCE_DIR}/bench/external/ck_epoch_shim.c)
    set_target_properties(smr_ck_epoch_shim PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
    target_include_directories(smr_ck_epoch_shim SYSTEM PRIVATE ${SMR_CK_INCLUDE_DIR})
    target_link_libraries(smr_ck_epoch_shim PUBLIC ${SMR_CK_LIB} Threads::Threads)
    target_compile_definitions(smr_external INTERFACE SMR_EXTERNAL_CK=1)
    target_link_libraries(smr_external INTERFACE smr_ck_epoch_shim)
    list(APPEND smr_external_built "Concurrency Kit")
  endif()

  find_path(SMR_CDS_INCLUDE_DIR cds/gc/hp.h)
  find_library(SMR_CDS_LIB cds)
  if(SMR_CDS_INCLUDE_DIR AND SMR_CDS_LIB)
    target_compile_definitions(smr_external INTERFACE SMR_EXTERNAL_CDS=1)
    target_include_directories(smr_external SYSTEM INTERFACE ${SMR_CDS_INCLUDE_DIR})
    target_link_libraries(smr_external INTERFACE ${SMR_CDS_LIB})
    list(APPEND smr_external_built "libcds")
  endif()
endif()

if(smr_external_built)
  string(JOIN ", " _smr_ext ${smr_external_built})
  message(STATUS "smr: external baselines built for ${_smr_ext}")
endif()
foreach(lib IN ITEMS "liburcu;liburcu-dev" "Concurrency Kit;libck-dev" "libcds;libcds-dev")
  list(GET lib 0 name)
  list(GET lib 1 package)
  if(NOT name IN_LIST smr_external_built)
    message(STATUS "smr: external baseline ${name} not built (install ${package}; scripts/setup.sh does)")
  endif()
endforeach()
