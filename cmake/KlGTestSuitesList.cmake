# Script mode (cmake -P), after a test program is built: writes OUT, one add_test per suite of
# EXE's --gtest_list_tests. Arguments: EXE, OUT, PREFIX, PROPS_FILE (the entries' properties),
# TIMEOUT (seconds the listing may take). See KlGTestSuites.cmake.
execute_process(COMMAND "${EXE}" --gtest_list_tests OUTPUT_VARIABLE listing ERROR_VARIABLE errors
                RESULT_VARIABLE status TIMEOUT ${TIMEOUT})
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${status}): ${errors}")
endif()
file(READ "${PROPS_FILE}" props)
# Suite lines start at column 0 and end the name with '.'; test lines are indented.
string(REGEX MATCHALL "\n[A-Za-z_][A-Za-z0-9_/]*\\." suites "\n${listing}")
set(text "")
foreach(suite IN LISTS suites)
  string(REGEX REPLACE "^\n(.*)\\.$" "\\1" suite "${suite}")
  string(APPEND text "add_test([==[${PREFIX}${suite}]==] \"${EXE}\" [==[--gtest_filter=${suite}.*]==])\n"
                     "set_tests_properties([==[${PREFIX}${suite}]==] PROPERTIES ${props})\n")
endforeach()
if(text STREQUAL "")
  message(FATAL_ERROR "${EXE} lists no test suite")
endif()
# Written whole and renamed, so CTest never reads half a list.
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
