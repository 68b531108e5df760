# HDF5 prints its error stack (lines starting "HDF5-DIAG") unless silenced: a test whose output
# carries one reached an error path of libhdf5 that mpimon did not handle as its own, even when the
# test passed otherwise. Every test fails on it, by CTest's own verdict (FAIL_REGULAR_EXPRESSION is
# matched against the test's whole output, also when it passes and ctest shows none of it), in
# every build; ctest.hdf5_guard checks that every registered test carries it.
set(MPIMON_TEST_FAIL_REGEX "HDF5-DIAG")

# mpimon_guard_tests(): called at the top of a directory's CMakeLists.txt; at the end of that
# directory, every test it added gets MPIMON_TEST_FAIL_REGEX. (Tests registered at test time, by
# gtest_discover_tests or a TEST_INCLUDE_FILES script, set the property themselves.)
function(mpimon_guard_tests)
  get_property(scheduled DIRECTORY PROPERTY MPIMON_TESTS_GUARDED)
  if(NOT scheduled)
    set_property(DIRECTORY PROPERTY MPIMON_TESTS_GUARDED TRUE)
    cmake_language(DEFER CALL _mpimon_guard_directory_tests)
  endif()
endfunction()

function(_mpimon_guard_directory_tests)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    set_property(TEST ${test} APPEND PROPERTY FAIL_REGULAR_EXPRESSION "${MPIMON_TEST_FAIL_REGEX}")
  endforeach()
endfunction()
