# umsync-cutlass.cmake: finds CUTLASS's headers for one benchmark comparison, the CUTLASS rows of
# family T (bench/tma_pipeline_bench.cu against cutlass::PipelineTmaAsync, built from
# bench/tma_pipeline_cutlass.cu). Only umsync's benchmarks use it; it is not installed, and
# CUTLASS is never vendored into the repository.
#
# UMSYNC_WITH_CUTLASS: AUTO (the default: the CUTLASS rows when the headers are found), ON (not
# finding them is an error), OFF (not looked for). Where, in order:
#   1. UMSYNC_CUTLASS_INCLUDE_DIR, a folder holding cutlass/pipeline/sm90_pipeline.hpp;
#   2. the pip package nvidia-cutlass (`pip install nvidia-cutlass==4.2.0`): its
#      cutlass_library/source/include/, found without importing the package (its imports need
#      numpy, scipy, networkx...);
#   3. a wheel nvidia_cutlass-*.whl in <source>/.deps/wheels (scripts/ci/stage-device-deps.sh puts
#      it there for a GPU machine without a registry): only its header tree is extracted, into
#      <build>/_deps/cutlass/.
# Sets UMSYNC_CUTLASS_FOUND, UMSYNC_CUTLASS_INCLUDE, UMSYNC_CUTLASS_VERSION (from
# cutlass/version.h), and UMSYNC_CUTLASS_REASON when it is false.

include_guard(GLOBAL)

set(UMSYNC_WITH_CUTLASS AUTO CACHE STRING "CUTLASS's PipelineTmaAsync in benchmark family T: AUTO (when found), ON, OFF")
set_property(CACHE UMSYNC_WITH_CUTLASS PROPERTY STRINGS AUTO ON OFF)
set(UMSYNC_CUTLASS_INCLUDE_DIR "" CACHE PATH
    "a folder holding cutlass/pipeline/sm90_pipeline.hpp; empty: pip's nvidia-cutlass, then .deps/wheels")

set(UMSYNC_CUTLASS_FOUND FALSE)
set(UMSYNC_CUTLASS_INCLUDE "")
set(UMSYNC_CUTLASS_VERSION "")
set(UMSYNC_CUTLASS_REASON "")

function(_umsync_find_cutlass)
  string(TOUPPER "${UMSYNC_WITH_CUTLASS}" mode)
  if(mode STREQUAL "OFF" OR mode STREQUAL "FALSE" OR mode STREQUAL "NO" OR mode STREQUAL "0")
    set(UMSYNC_CUTLASS_REASON "UMSYNC_WITH_CUTLASS is ${UMSYNC_WITH_CUTLASS}" PARENT_SCOPE)
    return()
  endif()
  set(header cutlass/pipeline/sm90_pipeline.hpp)
  set(candidates "")
  set(tried "")
  if(UMSYNC_CUTLASS_INCLUDE_DIR)
    list(APPEND candidates "${UMSYNC_CUTLASS_INCLUDE_DIR}")
    list(APPEND tried "UMSYNC_CUTLASS_INCLUDE_DIR")
  endif()
  find_program(UMSYNC_CUTLASS_PYTHON NAMES python3 python DOC "the Python whose pip installed nvidia-cutlass")
  mark_as_advanced(UMSYNC_CUTLASS_PYTHON)
  if(UMSYNC_CUTLASS_PYTHON)
    execute_process(
      COMMAND ${UMSYNC_CUTLASS_PYTHON} -c
              "import importlib.util as u; s = u.find_spec('cutlass_library'); print(list(s.submodule_search_locations)[0])"
      RESULT_VARIABLE rc OUTPUT_VARIABLE folder ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0 AND IS_DIRECTORY "${folder}/source/include")
      list(APPEND candidates "${folder}/source/include")
    endif()
    list(APPEND tried "pip's nvidia-cutlass (pip install nvidia-cutlass==4.2.0)")
  endif()
  file(GLOB wheels "${PROJECT_SOURCE_DIR}/.deps/wheels/nvidia_cutlass-*.whl")
  list(APPEND tried ".deps/wheels (scripts/ci/stage-device-deps.sh)")
  if(wheels)
    list(SORT wheels)
    list(GET wheels -1 wheel)
    set(extracted "${PROJECT_BINARY_DIR}/_deps/cutlass")
    get_filename_component(wheel_name "${wheel}" NAME)
    if(NOT EXISTS "${extracted}/${wheel_name}.done")
      file(REMOVE_RECURSE "${extracted}")
      file(MAKE_DIRECTORY "${extracted}")
      file(ARCHIVE_EXTRACT INPUT "${wheel}" DESTINATION "${extracted}" PATTERNS "cutlass_library/source/include/*")
      file(TOUCH "${extracted}/${wheel_name}.done")
    endif()
    list(APPEND candidates "${extracted}/cutlass_library/source/include")
  endif()
  foreach(folder IN LISTS candidates)
    if(EXISTS "${folder}/${header}")
      set(version "")
      if(EXISTS "${folder}/cutlass/version.h")
        file(STRINGS "${folder}/cutlass/version.h" lines REGEX "#define CUTLASS_(MAJOR|MINOR|PATCH) [0-9]+")
        foreach(part MAJOR MINOR PATCH)
          string(REGEX MATCH "CUTLASS_${part} ([0-9]+)" match "${lines}")
          list(APPEND version "${CMAKE_MATCH_1}")
        endforeach()
        string(REPLACE ";" "." version "${version}")
      endif()
      set(UMSYNC_CUTLASS_FOUND TRUE PARENT_SCOPE)
      set(UMSYNC_CUTLASS_INCLUDE "${folder}" PARENT_SCOPE)
      set(UMSYNC_CUTLASS_VERSION "${version}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  list(JOIN tried ", " tried)
  set(UMSYNC_CUTLASS_REASON "no ${header} under ${tried}" PARENT_SCOPE)
endfunction()

_umsync_find_cutlass()

string(TOUPPER "${UMSYNC_WITH_CUTLASS}" _umsync_cutlass_mode)
if(NOT UMSYNC_CUTLASS_FOUND AND _umsync_cutlass_mode STREQUAL "ON")
  message(FATAL_ERROR "umsync: UMSYNC_WITH_CUTLASS is ON but CUTLASS was not found (${UMSYNC_CUTLASS_REASON}). "
                      "Install it (pip install nvidia-cutlass==4.2.0), set UMSYNC_CUTLASS_INCLUDE_DIR, or use "
                      "UMSYNC_WITH_CUTLASS=AUTO.")
endif()
unset(_umsync_cutlass_mode)
if(UMSYNC_CUTLASS_FOUND)
  message(STATUS "umsync: CUTLASS ${UMSYNC_CUTLASS_VERSION} found in ${UMSYNC_CUTLASS_INCLUDE}: family T's "
                 "cutlass::PipelineTmaAsync rows are built")
else()
  message(STATUS "umsync: CUTLASS not found (${UMSYNC_CUTLASS_REASON}): family T's CUTLASS rows are skipped")
endif()
