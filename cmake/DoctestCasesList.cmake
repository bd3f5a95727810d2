# Run after a test program's build (DoctestCases.cmake): writes OUTPUT, a CTest file with one test per
# test case of EXECUTABLE. Names are handled as plain strings, never as CMake lists, and written as
# bracket arguments, so that ';', '[' and ']' in a name stay as they are.
execute_process(COMMAND "${EXECUTABLE}" --list-test-cases
                OUTPUT_VARIABLE listing RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${EXECUTABLE} --list-test-cases failed (${result}):\n${listing}")
endif()
string(REPLACE "|" ";" environment "${ENVIRONMENT}")

set(script "")
set(count 0)
set(rest "${listing}")
while(NOT rest STREQUAL "")
  string(FIND "${rest}" "\n" end)
  if(end EQUAL -1)
    set(line "${rest}")
    set(rest "")
  else()
    string(SUBSTRING "${rest}" 0 ${end} line)
    math(EXPR next "${end} + 1")
    string(SUBSTRING "${rest}" ${next} -1 rest)
  endif()
  if(line STREQUAL "" OR line MATCHES "^=+$" OR line MATCHES "^\\[doctest\\] ")
    continue()
  endif()
  # doctest's filter: ',' separates patterns and '\' escapes
  string(REPLACE "\\" "\\\\" filter "${line}")
  string(REPLACE "," "\\," filter "${filter}")
  string(APPEND script
         "add_test([==[${PREFIX}${line}]==] [==[${EXECUTABLE}]==] [==[--test-case=${filter}]==])\n"
         "set_tests_properties([==[${PREFIX}${line}]==] PROPERTIES WORKING_DIRECTORY [==[${WORKING_DIRECTORY}]==]"
         " ENVIRONMENT [==[${environment}]==] SKIP_RETURN_CODE 77)\n")
  math(EXPR count "${count} + 1")
endwhile()
if(count EQUAL 0)
  message(FATAL_ERROR "${EXECUTABLE} lists no test cases:\n${listing}")
endif()
file(WRITE "${OUTPUT}" "${script}")
