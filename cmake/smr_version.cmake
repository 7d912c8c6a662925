# smr_read_version(<header> <out_var>): sets <out_var> to the version "major.minor.patch" that
# include/smr/version.hpp defines, refusing a header whose SMR_VERSION_STRING disagrees with its
# components (the one number must be one number).
function(smr_read_version header out_var)
  file(STRINGS ${header} defines REGEX "^#define SMR_VERSION_(MAJOR|MINOR|PATCH|STRING) ")
  foreach(part MAJOR MINOR PATCH STRING)
    set(${part} "")
    foreach(line IN LISTS defines)
      if(line MATCHES "^#define SMR_VERSION_${part} +\"?([0-9.]+)\"?$")
        set(${part} ${CMAKE_MATCH_1})
      endif()
    endforeach()
    if(${part} STREQUAL "")
      message(FATAL_ERROR "smr: ${header} has no '#define SMR_VERSION_${part} <number>'; restore the version header")
    endif()
  endforeach()
  if(NOT STRING STREQUAL "${MAJOR}.${MINOR}.${PATCH}")
    message(FATAL_ERROR "smr: ${header} says SMR_VERSION_STRING \"${STRING}\" but its components are "
                        "${MAJOR}.${MINOR}.${PATCH}; make them agree")
  endif()
  # A new version in the header re-runs the configuration.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${header})
  set(${out_var} ${STRING} PARENT_SCOPE)
endfunction()
