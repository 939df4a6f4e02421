# umsync-testing.cmake: helpers for umsync's own test suite (not installed).

# Registers one ctest per source file of a doctest executable, named <label>.<file stem>,
# so ctest shows one line per header under test. GPU executables exit 77 when no device is
# usable, which ctest reports as skipped.
function(umsync_add_doctest_files target label)
  foreach(source IN LISTS ARGN)
    get_filename_component(stem ${source} NAME_WE)
    string(REGEX REPLACE "_(host_)?test$" "" stem ${stem})
    set(name ${label}.${stem})
    add_test(NAME ${name} COMMAND ${target} --source-file=*${source} --no-intro=true)
    set_tests_properties(${name} PROPERTIES LABELS ${label} SKIP_RETURN_CODE 77 TIMEOUT 300)
    if(label STREQUAL "gpu")
      # One GPU test process at a time: the leak checks read device-wide free memory.
      set_tests_properties(${name} PROPERTIES RESOURCE_LOCK umsync_gpu)
    endif()
  endforeach()
endfunction()

# One translation unit per public header, included twice (include guards), compiled with
# warnings as errors by nvcc; headers outside umsync/sync/ (device code) also by the host
# compiler alone.
function(umsync_add_header_checks include_dir)
  file(GLOB_RECURSE headers RELATIVE ${include_dir} CONFIGURE_DEPENDS ${include_dir}/umsync/*.hpp)
  set(cuda_sources "")
  set(cxx_sources "")
  foreach(header IN LISTS headers)
    string(MAKE_C_IDENTIFIER ${header} id)
    set(body "#include <${header}>\n#include <${header}>\n")
    file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/header_checks/${id}.cu CONTENT "${body}")
    list(APPEND cuda_sources ${CMAKE_CURRENT_BINARY_DIR}/header_checks/${id}.cu)
    if(NOT header MATCHES "^umsync/sync/")
      file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/header_checks/${id}.cpp CONTENT "${body}")
      list(APPEND cxx_sources ${CMAKE_CURRENT_BINARY_DIR}/header_checks/${id}.cpp)
    endif()
  endforeach()
  add_library(umsync_header_checks OBJECT ${cuda_sources} ${cxx_sources})
  target_link_libraries(umsync_header_checks PRIVATE umsync_project_options)
endfunction()

# A compile-fail test: the file's "// expect-error: <text>" lines name the messages nvcc must
# give. The test passes only when nvcc rejects the file, every error line carries one of the
# expected texts and each expected text appears; and when the same file compiles with
# -DUMSYNC_CF_CONTROL (so it fails for the right reason).
# umsync_compile_fail_flags(<var> [extra flags...]): the nvcc flags of a compile-fail check,
# joined with "|" for a -D argument: C++20, the first CUDA architecture built, umsync's headers,
# UMSYNC_DEBUG as the build, and (as umsync's own builds) a dropped [[nodiscard]] result is an
# error.
function(umsync_compile_fail_flags var)
  list(GET CMAKE_CUDA_ARCHITECTURES 0 arch)
  string(REGEX REPLACE "[^0-9].*$" "" arch "${arch}")
  if(arch STREQUAL "")
    set(arch 90)
  endif()
  set(flags -std=c++20 -arch=sm_${arch} --diag-error 3000,3001 -I${PROJECT_SOURCE_DIR}/include ${ARGN})
  if(UMSYNC_DEBUG)
    list(APPEND flags -DUMSYNC_DEBUG)
  endif()
  string(REPLACE ";" "|" flags "${flags}")
  set(${var} "${flags}" PARENT_SCOPE)
endfunction()

function(umsync_add_compile_fail_test source)
  get_filename_component(rule ${source} NAME_WE)
  umsync_compile_fail_flags(flags)
  add_test(NAME compile_fail.${rule}
    COMMAND ${CMAKE_COMMAND}
      -DNVCC=${CMAKE_CUDA_COMPILER}
      -DSOURCE=${source}
      -DFLAGS=${flags}
      -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/compile_fail/${rule}
      -P ${PROJECT_SOURCE_DIR}/cmake/umsync-compile-fail.cmake)
  set_tests_properties(compile_fail.${rule} PROPERTIES LABELS compile_fail TIMEOUT 300)
endfunction()

# umsync_add_test_executable(NAME LABEL MAIN SOURCES... [LIBRARIES libs...]): one executable with
# doctest, the calling directory's headers (test/support/) and the given main; one ctest per
# source file, labelled LABEL.
function(umsync_add_test_executable name label main)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "" "SOURCES;LIBRARIES")
  add_executable(${name} ${main} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE umsync_project_options ${arg_LIBRARIES} doctest::doctest)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  umsync_add_doctest_files(${name} ${label} ${arg_SOURCES})
endfunction()
