# umsync-testing.cmake: helpers for umsync's own test suite (not installed).

# Registers one ctest per source file of a doctest executable, so ctest shows one line per
# header under test. The name is <label>[.debug].<folder dots>.<name>: <name> is the file's stem
# without _test, _host_test or _debug (DEBUG), and with PATH_NAMES the folders of the file's path
# (relative to the calling directory) come before it, dot-separated, as test/ mirrors
# include/umsync/ (test/memory/managed_buffer_test.cu: gpu.memory.managed_buffer). GPU
# executables exit 77 when no device is usable, which ctest reports as skipped.
#   umsync_add_doctest_files(<target> <label> [DEBUG] [PATH_NAMES] <sources>...)
function(umsync_add_doctest_files target label)
  cmake_parse_arguments(PARSE_ARGV 2 arg "DEBUG;SEPARATE;PATH_NAMES" "" "")
  set(prefix ${label})
  set(labels ${label})
  if(arg_DEBUG)
    set(prefix ${label}.debug)
    list(APPEND labels debug)
  endif()
  if(arg_SEPARATE)
    set(prefix ${label}.separate)
    list(APPEND labels separate)
  endif()
  foreach(source IN LISTS arg_UNPARSED_ARGUMENTS)
    get_filename_component(stem ${source} NAME_WE)
    string(REGEX REPLACE "_(host_)?test$" "" stem ${stem})
    if(arg_DEBUG)
      string(REGEX REPLACE "_debug$" "" stem ${stem})
    endif()
    set(name ${prefix}.${stem})
    if(arg_PATH_NAMES)
      get_filename_component(folder ${source} DIRECTORY)
      if(NOT folder STREQUAL "")
        string(REPLACE "/" "." folder ${folder})
        set(name ${prefix}.${folder}.${stem})
      endif()
    endif()
    add_test(NAME ${name} COMMAND ${target} --source-file=*/${source} --no-intro=true)
    set_tests_properties(${name} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77 TIMEOUT 300)
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
# error: 3000 and 3001 for nodiscard functions and types, 3005 for a nodiscard type that cannot
# be copied (cluster_arrival, the pipeline's stages), which nvcc reports under its own number.
function(umsync_compile_fail_flags var)
  list(GET CMAKE_CUDA_ARCHITECTURES 0 arch)
  string(REGEX REPLACE "[^0-9].*$" "" arch "${arch}")
  if(arch STREQUAL "")
    set(arch 90)
  endif()
  set(flags -std=c++20 -arch=sm_${arch} --diag-error 3000,3001,3005 -I${PROJECT_SOURCE_DIR}/include ${ARGN})
  if(UMSYNC_DEBUG)
    list(APPEND flags -DUMSYNC_DEBUG)
  endif()
  string(REPLACE ";" "|" flags "${flags}")
  set(${var} "${flags}" PARENT_SCOPE)
endfunction()

# The test's name follows its path under test/: test/compile_fail/<rule>.cu is
# compile_fail.<rule>, test/<folder>/compile_fail/<rule>.cu is compile_fail.<folder dots>.<rule>
# (test/memory/compile_fail/copy_into_read_only.cu: compile_fail.memory.copy_into_read_only).
function(umsync_add_compile_fail_test source)
  get_filename_component(rule ${source} NAME_WE)
  file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR}/test ${source})
  get_filename_component(folder ${relative} DIRECTORY)
  string(REGEX REPLACE "(^|/)compile_fail$" "" folder "${folder}")
  set(name compile_fail.${rule})
  set(work ${rule})
  if(NOT folder STREQUAL "")
    string(REPLACE "/" "." dots ${folder})
    set(name compile_fail.${dots}.${rule})
    set(work ${folder}/${rule})
  endif()
  umsync_compile_fail_flags(flags)
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND}
      -DNVCC=${CMAKE_CUDA_COMPILER}
      -DSOURCE=${source}
      -DFLAGS=${flags}
      -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/compile_fail/${work}
      -P ${PROJECT_SOURCE_DIR}/cmake/umsync-compile-fail.cmake)
  set_tests_properties(${name} PROPERTIES LABELS compile_fail TIMEOUT 300)
endfunction()

# umsync_add_test_executable(NAME LABEL MAIN [DEBUG] [PATH_NAMES] SOURCES... [LIBRARIES libs...]):
# one executable with doctest, the calling directory's headers (test/support/) and the given main;
# one ctest per source file, labelled LABEL (umsync_add_doctest_files names them). DEBUG builds it
# with UMSYNC_DEBUG (a different inline namespace: it shares no executable with release code).
function(umsync_add_test_executable name label main)
  cmake_parse_arguments(PARSE_ARGV 3 arg "DEBUG;SEPARATE;PATH_NAMES" "" "SOURCES;LIBRARIES")
  add_executable(${name} ${main} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE umsync_project_options ${arg_LIBRARIES} doctest::doctest)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  set(options "")
  if(arg_DEBUG)
    target_compile_definitions(${name} PRIVATE UMSYNC_DEBUG)
    list(APPEND options DEBUG)
  endif()
  if(arg_SEPARATE)
    # Built as a program that links umsync's compiled part (umsync/separate_compilation.hpp).
    target_sources(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support/compiled_part.cpp)
    target_compile_definitions(${name} PRIVATE UMSYNC_SEPARATE_COMPILATION)
    list(APPEND options SEPARATE)
  endif()
  if(arg_PATH_NAMES)
    list(APPEND options PATH_NAMES)
  endif()
  umsync_add_doctest_files(${name} ${label} ${options} ${arg_SOURCES})
  if(label STREQUAL "host")
    set_property(GLOBAL APPEND PROPERTY UMSYNC_MATRIX_TARGETS ${name})  # test/cccl35/CMakeLists.txt
  endif()
endfunction()

# umsync_collect_tests(<prefix> <dir> SPECIAL <folders>...): the test files of the tree under
# <dir> that mirrors include/umsync/, sorted by kind into <prefix>_HOST (*_host_test.cpp),
# <prefix>_GPU (*_test.cu), <prefix>_DEBUG_HOST (*_debug_host_test.cpp), <prefix>_DEBUG_GPU
# (*_debug_test.cu), <prefix>_NCCL and <prefix>_TELEMETRY (nccl/*_test.cu, telemetry/*_test.cu:
# executables of their own) and <prefix>_COMPILE_FAIL (compile_fail/*.cu in any folder), paths
# relative to <dir> (compile-fail cases absolute). Folders named in SPECIAL (top level) are not
# part of the mirror and are left out. A test file of another name, or two test files (or two
# compile-fail cases) of one name in different folders, stop the configure step.
function(umsync_collect_tests prefix dir)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "SPECIAL")
  file(GLOB_RECURSE files CONFIGURE_DEPENDS RELATIVE ${dir} ${dir}/*.cu ${dir}/*.cpp)
  list(SORT files)
  foreach(kind HOST GPU DEBUG_HOST DEBUG_GPU NCCL TELEMETRY COMPILE_FAIL)
    set(${kind} "")
  endforeach()
  set(seen_names "")
  foreach(file IN LISTS files)
    string(REGEX MATCH "^[^/]+/" top "${file}")
    string(REGEX REPLACE "/$" "" top "${top}")
    if(NOT top STREQUAL "" AND top IN_LIST arg_SPECIAL)
      continue()
    endif()
    get_filename_component(base ${file} NAME)
    if(file MATCHES "(^|/)compile_fail/[^/]+\\.cu$")
      set(kind COMPILE_FAIL)
    elseif(top STREQUAL "nccl" AND base MATCHES "_test\\.cu$")
      set(kind NCCL)
    elseif(top STREQUAL "telemetry" AND base MATCHES "_test\\.cu$")
      set(kind TELEMETRY)
    elseif(base MATCHES "_debug_host_test\\.cpp$")
      set(kind DEBUG_HOST)
    elseif(base MATCHES "_debug_test\\.cu$")
      set(kind DEBUG_GPU)
    elseif(base MATCHES "_host_test\\.cpp$")
      set(kind HOST)
    elseif(base MATCHES "_test\\.cu$")
      set(kind GPU)
    else()
      message(FATAL_ERROR "umsync: test/${file} is not named as a test: test/ mirrors include/umsync/, "
                          "and a file there is <header>_test.cu (GPU), <header>_host_test.cpp (host), "
                          "<header>_debug_test.cu or <header>_debug_host_test.cpp (UMSYNC_DEBUG builds), "
                          "or a case in a compile_fail/ folder; helpers go to test/support/")
    endif()
    # Names are unique across folders: the doctest filter and the compile-fail work folders
    # find a file by its name, and a reader greps for it.
    set(key ${kind}:${base})
    if(kind STREQUAL "COMPILE_FAIL")
      set(key COMPILE_FAIL:${base})
    else()
      set(key TEST:${base})
    endif()
    string(REPLACE ";" "," key_escaped "${key}")
    list(FIND seen_names "${key_escaped}" index)
    if(NOT index EQUAL -1)
      list(GET seen_paths ${index} other)
      message(FATAL_ERROR "umsync: test/${other} and test/${file} have the same name: test file names and "
                          "compile-fail case names are unique across test/'s folders (rename one, e.g. "
                          "<header>_<aspect>_test.cu)")
    endif()
    list(APPEND seen_names "${key_escaped}")
    list(APPEND seen_paths "${file}")
    if(kind STREQUAL "COMPILE_FAIL")
      list(APPEND ${kind} ${dir}/${file})
    else()
      list(APPEND ${kind} ${file})
    endif()
  endforeach()
  foreach(kind HOST GPU DEBUG_HOST DEBUG_GPU NCCL TELEMETRY COMPILE_FAIL)
    set(${prefix}_${kind} "${${kind}}" PARENT_SCOPE)
  endforeach()
endfunction()

# A test (label host) that the objects of the OBJECT libraries PROBES have (present) or lack
# (absent) code of the symbols named in <symbols> ("|"-separated parts of demangled names) and,
# with NAMES, the strings named there among their bytes, read by nm:
# cmake/umsync-symbol-check.cmake. DEFINED_ONLY counts only what the objects define, not what
# they call. The probes join the targets a matrix entry builds (test/cccl35/CMakeLists.txt).
#   umsync_add_symbol_test(<name> <symbols> present|absent PROBES <probe>... [NAMES <names>] [DEFINED_ONLY])
function(umsync_add_symbol_test name symbols expect)
  cmake_parse_arguments(PARSE_ARGV 3 arg "DEFINED_ONLY" "NAMES" "PROBES")
  set(defined_only OFF)
  if(arg_DEFINED_ONLY)
    set(defined_only ON)
  endif()
  set(objects "")
  foreach(probe IN LISTS arg_PROBES)
    list(APPEND objects "$<TARGET_OBJECTS:${probe}>")
  endforeach()
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} "-DOBJECTS=$<JOIN:${objects},|>" "-DSYMBOL=${symbols}" "-DNAMES=${arg_NAMES}"
      -DEXPECT=${expect} -DDEFINED_ONLY=${defined_only} -P ${PROJECT_SOURCE_DIR}/cmake/umsync-symbol-check.cmake)
  set_tests_properties(${name} PROPERTIES LABELS host)
  set_property(GLOBAL APPEND PROPERTY UMSYNC_MATRIX_TARGETS ${arg_PROBES})
endfunction()
