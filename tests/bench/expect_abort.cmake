# Runs PROGRAM and passes only if it stopped with a non-zero status (an abort included) and its
# standard error contains EXPECTED. Usage:
#   cmake -DPROGRAM=<path> -DEXPECTED=<text> -P expect_abort.cmake
execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(status STREQUAL "0")
  message(FATAL_ERROR "${PROGRAM} exited 0, expected it to stop:\n${out}${err}")
endif()
string(FIND "${err}" "${EXPECTED}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${PROGRAM} stopped (${status}) without saying \"${EXPECTED}\":\n${err}")
endif()
message(STATUS "${PROGRAM} stopped (${status}): ${err}")
