# Compiles SOURCE as C++17 and checks that it fails and that its first error line is the
# library's "smr requires C++20" message. Usage:
#   cmake -DCXX=<compiler> -DINCLUDE=<include dir> -DSOURCE=<file> -P expect_first_error.cmake
execute_process(
  COMMAND ${CXX} -std=c++17 -fsyntax-only -I${INCLUDE} ${SOURCE}
  RESULT_VARIABLE result
  ERROR_VARIABLE diagnostics
  OUTPUT_VARIABLE ignored)
if(result EQUAL 0)
  message(FATAL_ERROR "compiling ${SOURCE} as C++17 succeeded; it must fail")
endif()
string(REGEX MATCH "[^\n]*error:[^\n]*" first_error "${diagnostics}")
if(NOT first_error MATCHES "smr requires C\\+\\+20")
  message(FATAL_ERROR "the first error is not smr's own message:\n  ${first_error}\nfull output:\n${diagnostics}")
endif()
message(STATUS "first error: ${first_error}")
