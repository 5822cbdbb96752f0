# kl_gtest_suites(TARGET [TEST_PREFIX P] [LABELS L...] [ENVIRONMENT E...] [DISCOVERY_TIMEOUT S]):
# one CTest entry per GoogleTest suite of TARGET (P<Suite>, running --gtest_filter=<Suite>.*),
# listed after each build as gtest_discover_tests lists single tests.
#
# Why suites and not single tests: every CTest entry is one process, and under ASan + LSan a
# test process costs about 0.6 s of start and leak scan whatever it tests; 465 entries spent
# about 300 s of CI's sanitizer pass on that alone. A failure still names its test: CTest
# prints the suite's GoogleTest output (--output-on-failure).
#
# Skips stay visible: TARGET links kl_gtest_main (tests/common/gtest_main.cpp), which exits 77
# (the entries' SKIP_RETURN_CODE) when every test it ran was skipped and fails when skipped
# and passed tests share one run. So a test that may GTEST_SKIP needs a suite of its own.
set(KL_GTEST_SUITES_LIST_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/KlGTestSuitesList.cmake)

function(kl_gtest_suites target)
  cmake_parse_arguments(arg "" "TEST_PREFIX;DISCOVERY_TIMEOUT" "LABELS;ENVIRONMENT" ${ARGN})
  if(NOT arg_DISCOVERY_TIMEOUT)
    set(arg_DISCOVERY_TIMEOUT 60)
  endif()
  string(REPLACE ";" "\\;" labels "${arg_LABELS}")
  set(props "LABELS \"${labels}\" SKIP_RETURN_CODE 77 WORKING_DIRECTORY \"${CMAKE_CURRENT_BINARY_DIR}\"")
  if(arg_ENVIRONMENT)
    string(REPLACE ";" "\\;" environment "${arg_ENVIRONMENT}")
    string(APPEND props " ENVIRONMENT \"${environment}\"")
  endif()
  set(props_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suite_properties.txt)
  set(suites_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake)
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake)
  file(WRITE ${props_file} "${props}")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D EXE=$<TARGET_FILE:${target}> -D OUT=${suites_file} -D PREFIX=${arg_TEST_PREFIX}
            -D PROPS_FILE=${props_file} -D TIMEOUT=${arg_DISCOVERY_TIMEOUT} -P ${KL_GTEST_SUITES_LIST_SCRIPT}
    BYPRODUCTS ${suites_file} VERBATIM)
  file(WRITE ${include_file}
       "if(EXISTS \"${suites_file}\")\n  include(\"${suites_file}\")\nelse()\n  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()
