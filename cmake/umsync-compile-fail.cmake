cmake_minimum_required(VERSION 3.25)
# umsync-compile-fail.cmake: runs one compile-fail test (see umsync_add_compile_fail_test).
#   cmake -DNVCC=... -DSOURCE=x.cu -DFLAGS="a|b|c" -DWORK_DIR=... -P umsync-compile-fail.cmake

string(REPLACE "|" ";" flags "${FLAGS}")
file(MAKE_DIRECTORY ${WORK_DIR})

# CMake lists split on ';', so both the file and nvcc's output read ';' as ','.
file(READ ${SOURCE} content)
# A case of an architecture-specific rule names its architecture ("// arch: sm_90a" for wgmma).
if(content MATCHES "\n// arch: (sm_[0-9]+a?)\n")
  list(TRANSFORM flags REPLACE "^-arch=sm_[0-9]+a?$" "-arch=${CMAKE_MATCH_1}")
endif()
string(REPLACE ";" "," content "${content}")
string(REPLACE "\n" ";" content_lines "${content}")
set(expected "")
foreach(line IN LISTS content_lines)
  if(NOT line MATCHES "^[ \t]*//[ \t]*expect-error:")
    continue()
  endif()
  string(REGEX REPLACE "^[ \t]*//[ \t]*expect-error:[ \t]*" "" text "${line}")
  string(STRIP "${text}" text)
  list(APPEND expected "${text}")
endforeach()
if(NOT expected)
  message(FATAL_ERROR "${SOURCE} names no '// expect-error: umsync: ...' line")
endif()
foreach(text IN LISTS expected)
  if(NOT text MATCHES "^umsync: ")
    message(FATAL_ERROR "expected messages must start with 'umsync: ': ${text}")
  endif()
endforeach()

# 1. The file must not compile.
execute_process(COMMAND ${NVCC} ${flags} -c ${SOURCE} -o ${WORK_DIR}/fail.o
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but the rule it tests should have rejected it")
endif()

# 2. Every error line is an expected umsync message, and every expected message appears.
string(REPLACE ";" "," out_escaped "${out}")
string(REPLACE "\n" ";" out_lines "${out_escaped}")
set(error_count 0)
set(seen "")
foreach(line IN LISTS out_lines)
  if(line MATCHES "errors? detected in the compilation")
    continue()
  endif()
  if(line MATCHES "(: |^)(fatal )?error( #[^:]*)?:" OR line MATCHES ": catastrophic error:")
    math(EXPR error_count "${error_count} + 1")
    set(matched FALSE)
    foreach(text IN LISTS expected)
      string(FIND "${line}" "${text}" pos)
      if(pos GREATER -1)
        set(matched TRUE)
        list(APPEND seen "${text}")
      endif()
    endforeach()
    if(NOT matched)
      message(FATAL_ERROR "${SOURCE}: an error that is not an expected umsync message:\n  ${line}\n"
                          "Full output:\n${out}")
    endif()
  endif()
endforeach()
if(error_count EQUAL 0)
  message(FATAL_ERROR "${SOURCE}: nvcc failed but printed no error line:\n${out}")
endif()
foreach(text IN LISTS expected)
  if(NOT text IN_LIST seen)
    message(FATAL_ERROR "${SOURCE}: expected message never appeared: ${text}\nFull output:\n${out}")
  endif()
endforeach()

# 3. The control build (the same file with the mistake taken out) compiles.
execute_process(COMMAND ${NVCC} ${flags} -DUMSYNC_CF_CONTROL -c ${SOURCE} -o ${WORK_DIR}/control.o
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE}: the control build (-DUMSYNC_CF_CONTROL) does not compile, so the test "
                      "may fail for another reason:\n${out}")
endif()
message(STATUS "${SOURCE}: rejected with ${error_count} expected umsync error(s); control build compiles")
