# umsync_add_format_check([SOURCE_DIR]): registers the ctest `host.format` (label host), which
# checks that every C++/CUDA source under include/, test/, bench/, examples/ and scripts/ of
# SOURCE_DIR (default: PROJECT_SOURCE_DIR) is formatted as SOURCE_DIR/.clang-format says.
# The files are collected when CMake configures (re-collected when files are added or removed);
# directories named build* and the build tree are left out.
#
# The style is pinned to one clang-format major version (UMSYNC_CLANG_FORMAT_MAJOR, 14: Debian
# 12's `clang-format` package), because other versions format some constructs differently.
# Without that clang-format the test is not registered, and a STATUS message says why.
include_guard(GLOBAL)

set(UMSYNC_CLANG_FORMAT_MAJOR 14 CACHE STRING "clang-format major version the host.format test checks with")

function(umsync_add_format_check)
  if(ARGC GREATER 0)
    get_filename_component(source_dir "${ARGV0}" ABSOLUTE)
  else()
    set(source_dir "${PROJECT_SOURCE_DIR}")
  endif()

  find_program(UMSYNC_CLANG_FORMAT
    NAMES clang-format-${UMSYNC_CLANG_FORMAT_MAJOR} clang-format
    DOC "clang-format used by the host.format test")
  if(NOT UMSYNC_CLANG_FORMAT)
    message(STATUS "umsync: clang-format not found: the format test host.format is not registered "
                   "(apt-get install clang-format, or pass -DUMSYNC_CLANG_FORMAT=/path/to/clang-format)")
    return()
  endif()
  execute_process(COMMAND "${UMSYNC_CLANG_FORMAT}" --version
    RESULT_VARIABLE rc OUTPUT_VARIABLE version_text ERROR_VARIABLE version_text)
  if(NOT rc EQUAL 0 OR NOT version_text MATCHES "clang-format version ([0-9]+)\\.[0-9.]+")
    message(STATUS "umsync: ${UMSYNC_CLANG_FORMAT} --version failed: the format test host.format is not registered")
    return()
  endif()
  set(major "${CMAKE_MATCH_1}")
  string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" version "${version_text}")
  if(NOT major STREQUAL UMSYNC_CLANG_FORMAT_MAJOR)
    message(STATUS "umsync: ${UMSYNC_CLANG_FORMAT} is clang-format ${version}, but the style is checked with "
                   "clang-format ${UMSYNC_CLANG_FORMAT_MAJOR}: the format test host.format is not registered "
                   "(pass -DUMSYNC_CLANG_FORMAT=/path/to/clang-format-${UMSYNC_CLANG_FORMAT_MAJOR})")
    return()
  endif()
  if(NOT EXISTS "${source_dir}/.clang-format")
    message(STATUS "umsync: no ${source_dir}/.clang-format: the format test host.format is not registered")
    return()
  endif()

  set(patterns)
  foreach(dir IN ITEMS include test bench examples scripts)
    foreach(extension IN ITEMS hpp cuh cu cpp h)
      list(APPEND patterns "${source_dir}/${dir}/*.${extension}")
    endforeach()
  endforeach()
  file(GLOB_RECURSE files LIST_DIRECTORIES false CONFIGURE_DEPENDS RELATIVE "${source_dir}" ${patterns})
  # Build trees inside the source tree: any directory named build*, and this build's own tree.
  list(FILTER files EXCLUDE REGEX "(^|/)build[^/]*/")
  file(RELATIVE_PATH binary_in_source "${source_dir}" "${PROJECT_BINARY_DIR}")
  if(NOT binary_in_source MATCHES "^\\.\\./" AND NOT binary_in_source STREQUAL "")
    string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" binary_regex "${binary_in_source}")
    list(FILTER files EXCLUDE REGEX "^${binary_regex}/")
  endif()
  list(SORT files)
  list(LENGTH files count)

  set(list_file "${CMAKE_CURRENT_BINARY_DIR}/umsync-format-files.txt")
  list(JOIN files "\n" file_lines)
  file(CONFIGURE OUTPUT "${list_file}" CONTENT "${file_lines}\n" @ONLY)

  add_test(NAME host.format
    COMMAND ${CMAKE_COMMAND}
      -DCLANG_FORMAT=${UMSYNC_CLANG_FORMAT}
      -DSOURCE_DIR=${source_dir}
      -DFILE_LIST=${list_file}
      -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/umsync-format-check.cmake)
  set_tests_properties(host.format PROPERTIES LABELS host TIMEOUT 300)
  message(STATUS "umsync: host.format checks ${count} files with clang-format ${version}")
endfunction()
