cmake_minimum_required(VERSION 3.25)
# The ways docs/install.md documents, each as written there:
# - installs umsync with the documented configure and `cmake --install` into a temporary prefix;
# - builds the consumer project three times: find_package(umsync CONFIG REQUIRED) on that prefix,
#   add_subdirectory on the source tree, FetchContent with FETCHCONTENT_SOURCE_DIR_UMSYNC set to
#   the source tree (its repository does not exist: nothing is downloaded). Each build has a
#   program on umsync::umsync, one on umsync::debug and, when umsync's own configure found RMM,
#   one on umsync::rmm with umsync::debug (an RMM debug build, docs/rmm.md);
# - runs the plain nvcc command lines of docs/install.md and (with RMM) docs/rmm.md as written,
#   with UMSYNC= set to the prefix;
# - configures a project that calls find_package(umsync) before enabling CUDA, which must stop
#   with umsync's message.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${command}\n${out}")
  endif()
endfunction()

# RMM as umsync's own configure saw it: then every consumer must build its RMM debug program.
load_cache(${UMSYNC_BINARY_DIR} READ_WITH_PREFIX cache_ UMSYNC_RMM_LIBRARY UMSYNC_WITH_RMM)
set(rmm_found FALSE)
if(cache_UMSYNC_RMM_LIBRARY AND NOT cache_UMSYNC_WITH_RMM MATCHES "^(OFF|off|FALSE|NO|0)$")
  set(rmm_found TRUE)
endif()

# docs/install.md, "cmake --install": configure with umsync's own parts off, install, no build.
run(${CMAKE_COMMAND} -S ${UMSYNC_SOURCE_DIR} -B ${WORK_DIR}/umsync-build
    -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}
    -DUMSYNC_BUILD_TESTS=OFF -DUMSYNC_BUILD_BENCHMARKS=OFF -DUMSYNC_BUILD_EXAMPLES=OFF)
run(${CMAKE_COMMAND} --install ${WORK_DIR}/umsync-build --prefix ${WORK_DIR}/prefix)
if(NOT EXISTS ${WORK_DIR}/prefix/include/umsync/umsync.hpp)
  message(FATAL_ERROR "the install put no umsync/umsync.hpp under the prefix")
endif()

set(consumer ${UMSYNC_SOURCE_DIR}/test/package/consumer)
foreach(mode find_package add_subdirectory fetchcontent)
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/${mode}
      -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
      -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}
      -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}
      -DUMSYNC_CONSUMER_MODE=${mode}
      -DUMSYNC_SOURCE_DIR=${UMSYNC_SOURCE_DIR}
      -DFETCHCONTENT_SOURCE_DIR_UMSYNC=${UMSYNC_SOURCE_DIR})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/${mode})
  if(NOT EXISTS ${WORK_DIR}/${mode}/consumer OR NOT EXISTS ${WORK_DIR}/${mode}/consumer_debug)
    message(FATAL_ERROR "the ${mode} consumer built no executable")
  endif()
  # The program runs everywhere: it prints the device probe (no GPU is not a failure here).
  run(${WORK_DIR}/${mode}/consumer)
  # consumer_debug links umsync::debug; its static_assert(umsync::debug_build) compiled.
  run(${WORK_DIR}/${mode}/consumer_debug)
  set(programs "consumer and consumer_debug (umsync::debug)")
  if(rmm_found)
    if(NOT EXISTS ${WORK_DIR}/${mode}/consumer_rmm_debug)
      message(FATAL_ERROR "umsync's configure found RMM, but the ${mode} consumer has no umsync::rmm: "
                          "consumer_rmm_debug was not built")
    endif()
    run(${WORK_DIR}/${mode}/consumer_rmm_debug)
    string(APPEND programs " and consumer_rmm_debug (umsync::rmm with umsync::debug)")
  endif()
  message(STATUS "${mode}: ${programs} configured, built and ran")
endforeach()

# The plain nvcc command lines of the docs, as written: the sh block after the line
# <!-- package-test: NAME --> in FILE, run by bash in a folder holding SOURCE as app.cu, with the
# block's UMSYNC= line pointing at the prefix and the nvcc of this build first on PATH.
get_filename_component(nvcc_dir ${CUDA_COMPILER} DIRECTORY)
function(run_documented name file source)
  file(READ ${UMSYNC_SOURCE_DIR}/${file} text)
  string(REGEX MATCH "<!-- package-test: ${name} -->\n```sh\n([^`]*)```" block "${text}")
  if(NOT block)
    message(FATAL_ERROR "${file} has no sh block after <!-- package-test: ${name} -->")
  endif()
  set(script "${CMAKE_MATCH_1}")
  string(REGEX REPLACE "(^|\n)UMSYNC=[^\n]*" "\\1UMSYNC='${WORK_DIR}/prefix'" script "${script}")
  set(dir ${WORK_DIR}/${name})
  file(MAKE_DIRECTORY ${dir})
  file(COPY_FILE ${UMSYNC_SOURCE_DIR}/${source} ${dir}/app.cu)
  file(WRITE ${dir}/build.sh "set -euo pipefail\n${script}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "PATH=${nvcc_dir}:$ENV{PATH}" bash ${dir}/build.sh
    WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${file}'s command line (${name}) failed (${rc}):\n${script}\n${out}")
  endif()
endfunction()
function(expect_output program expected)
  execute_process(COMMAND ${program} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(FIND "${out}" "${expected}" at)
  if(NOT rc EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "${program} should exit 0 and print '${expected}'; exit ${rc}, output:\n${out}")
  endif()
endfunction()
run_documented(nvcc docs/install.md test/package/nvcc_app.cu)
expect_output(${WORK_DIR}/nvcc/app "UMSYNC_DEBUG off")
expect_output(${WORK_DIR}/nvcc/app_debug "UMSYNC_DEBUG on")
set(documented "docs/install.md's nvcc command lines (release and debug)")
if(rmm_found)
  run_documented(nvcc-rmm docs/rmm.md test/package/consumer/rmm_debug_main.cu)
  expect_output(${WORK_DIR}/nvcc-rmm/app "RMM debug consumer")
  string(APPEND documented " and docs/rmm.md's (umsync, RMM, UMSYNC_DEBUG)")
endif()
message(STATUS "${documented} built and ran as written")

# find_package(umsync) before the CUDA language is enabled: configure only. REQUIRED stops with
# umsync's message (checked word for word; CMake wraps long messages, so whitespace runs are
# compared as one space); without REQUIRED, umsync is not found and the message says why.
string(CONCAT no_cuda_message
  "umsync: find_package(umsync) needs the CUDA language, which is not enabled here "
  "(umsync::umsync asks nvcc for C++20). Enable it first: project(<name> LANGUAGES CXX CUDA), "
  "or enable_language(CUDA) before find_package(umsync), in this directory or one above it.")
function(normalized out text)
  string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
normalized(expected "${no_cuda_message}")
set(no_cuda_consumer ${UMSYNC_SOURCE_DIR}/test/package/no_cuda_consumer)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${no_cuda_consumer} -B ${WORK_DIR}/no_cuda_required
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
normalized(seen "${out}")
string(FIND "${seen}" "CMake Error at " error_at)
string(FIND "${seen}" "(message): ${expected}" message_at)
if(rc EQUAL 0 OR error_at EQUAL -1 OR message_at EQUAL -1)
  message(FATAL_ERROR "find_package(umsync REQUIRED) without CUDA should stop with\n  ${expected}\n"
                      "exit ${rc}, output:\n${out}")
endif()
string(FIND "${seen}" "cuda_std_20" feature_at)
if(NOT feature_at EQUAL -1)
  message(FATAL_ERROR "find_package(umsync REQUIRED) without CUDA still reaches cuda_std_20:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${no_cuda_consumer} -B ${WORK_DIR}/no_cuda_optional
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DUMSYNC_CONSUMER_OPTIONAL=ON
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
normalized(seen "${out}")
string(FIND "${seen}" "umsync not found: ${expected}" message_at)
if(NOT rc EQUAL 0 OR message_at EQUAL -1)
  message(FATAL_ERROR "find_package(umsync) without REQUIRED and CUDA should report umsync not found "
                      "with umsync's message; exit ${rc}, output:\n${out}")
endif()
message(STATUS "no CUDA language: find_package(umsync REQUIRED) stops with umsync's message; without REQUIRED, not found")
