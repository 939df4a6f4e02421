# The host.format test (see umsync-format.cmake): runs CLANG_FORMAT --dry-run --Werror on each
# file listed in FILE_LIST (one path a line, relative to SOURCE_DIR) and fails naming the files
# that are not formatted as SOURCE_DIR/.clang-format says, with the command that fixes them.
#   cmake -DCLANG_FORMAT=clang-format -DSOURCE_DIR=<repo> -DFILE_LIST=<list> -P umsync-format-check.cmake
cmake_minimum_required(VERSION 3.25)
foreach(variable CLANG_FORMAT SOURCE_DIR FILE_LIST)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "umsync-format-check.cmake needs -D${variable}=...")
  endif()
endforeach()

file(STRINGS "${FILE_LIST}" files)
set(checked 0)
set(unformatted)
set(missing)
set(details)
foreach(file IN LISTS files)
  if(NOT EXISTS "${SOURCE_DIR}/${file}")
    list(APPEND missing "${file}")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror --style=file "${file}"
    WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0)
    continue()
  endif()
  string(REGEX MATCHALL "[^\n]*: error: code should be clang-formatted" violations "${out}")
  list(LENGTH violations places)
  if(places EQUAL 0)
    # Not a formatting difference: clang-format itself failed (a bad .clang-format, say).
    message(FATAL_ERROR "umsync: ${CLANG_FORMAT} failed on ${file} (exit ${rc}):\n${out}")
  endif()
  list(GET violations 0 first)
  string(REGEX MATCH ":([0-9]+):[0-9]+: error:" first_line "${first}")
  list(APPEND unformatted "${file}")
  string(APPEND details "  ${file}: ${places} place(s), the first at line ${CMAKE_MATCH_1}\n")
endforeach()

if(missing)
  list(JOIN missing ", " missing_text)
  message(STATUS "umsync: listed but gone (re-run cmake to update the list): ${missing_text}")
endif()
list(LENGTH unformatted count)
if(count GREATER 0)
  list(JOIN unformatted " " fix)
  # NOTICE prints as written (FATAL_ERROR rewraps its text); the error then ends the test.
  message(NOTICE
    "umsync: ${count} of ${checked} files are not formatted as ${SOURCE_DIR}/.clang-format says:\n"
    "${details}"
    "Fix them (from ${SOURCE_DIR}) with:\n"
    "  ${CLANG_FORMAT} -i ${fix}\n"
    "then look at the changes with git diff. Code that must keep its own layout can sit between\n"
    "'// clang-format off' and '// clang-format on' lines.\n")
  message(FATAL_ERROR "umsync: ${count} files not formatted (listed above)")
endif()
message(STATUS "umsync: ${checked} files formatted as .clang-format says")
