# Runs a command and passes only when it exits with 0 AND its output matches a regular
# expression. CTest's PASS_REGULAR_EXPRESSION alone ignores the exit code, so a program whose own
# check failed could still pass on a matching line; this script is how mpimon's tests match output.
#   cmake -DPASS_REGEX=REGEX -P run_and_match.cmake -- COMMAND [ARGS...]
# The regular expression is CMake's (as for PASS_REGULAR_EXPRESSION), matched against stdout and
# stderr together. Registered through mpimon_add_matching_test / mpimon_add_mpi_test(PASS_REGEX).
if(NOT DEFINED PASS_REGEX)
  message(FATAL_ERROR "run_and_match.cmake: -DPASS_REGEX=... is required")
endif()
set(command)
set(after_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_separator)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(after_separator TRUE)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "run_and_match.cmake: no command after --")
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT status STREQUAL "0")
  message(FATAL_ERROR "run_and_match: the command exited with ${status} (output above); a matching line does not make it pass")
endif()
if(NOT out MATCHES "${PASS_REGEX}")
  message(FATAL_ERROR "run_and_match: the output (above) does not match: ${PASS_REGEX}")
endif()
