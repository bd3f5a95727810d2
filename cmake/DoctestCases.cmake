# One CTest test per doctest test case, whatever its name holds (doctest's own discovery splits names
# and properties at ';'). After each build of TARGET its test cases are listed into a CTest file
# (DoctestCasesList.cmake); each test runs `TARGET --test-case=NAME` with the name escaped for
# doctest's filter, NMT_TEST_CASES_EXPECTED=1 (the program fails unless exactly one case ran, see
# tests/unit/test_main.cpp) and exit code 77 counted as skipped.
#
#   nmt_add_doctest_cases(TARGET PREFIX "unit." ENVIRONMENT "A=1;B=2")
set(NMT_DOCTEST_CASES_LIST_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/DoctestCasesList.cmake)

function(nmt_add_doctest_cases target)
  cmake_parse_arguments(ARG "" "PREFIX" "ENVIRONMENT" ${ARGN})
  set(tests_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_cases.cmake")
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_cases_include.cmake")
  # '|' carries the list through the command line; the script turns it back into ';'
  string(REPLACE ";" "|" environment "${ARG_ENVIRONMENT};NMT_TEST_CASES_EXPECTED=1")
  add_custom_command(
    TARGET ${target} POST_BUILD
    BYPRODUCTS "${tests_file}"
    COMMAND "${CMAKE_COMMAND}" -D "EXECUTABLE=$<TARGET_FILE:${target}>" -D "PREFIX=${ARG_PREFIX}"
            -D "ENVIRONMENT=${environment}" -D "WORKING_DIRECTORY=${CMAKE_CURRENT_BINARY_DIR}"
            -D "OUTPUT=${tests_file}" -P "${NMT_DOCTEST_CASES_LIST_SCRIPT}"
    VERBATIM)
  file(WRITE "${include_file}"
       "if(EXISTS \"${tests_file}\")\n  include(\"${tests_file}\")\nelse()\n"
       "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
