cmake_minimum_required(VERSION 3.25)
# Installs umsync into a temporary prefix and builds the consumer project twice: once with
# find_package(umsync CONFIG REQUIRED), once with add_subdirectory on the source tree; each
# build has a program on umsync::umsync and one on umsync::debug. Then configures a project
# that calls find_package(umsync) before enabling CUDA, which must stop with umsync's message.

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${command}\n${out}")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${UMSYNC_BINARY_DIR} --prefix ${WORK_DIR}/prefix)
if(NOT EXISTS ${WORK_DIR}/prefix/include/umsync/umsync.hpp)
  message(FATAL_ERROR "the install put no umsync/umsync.hpp under the prefix")
endif()

set(consumer ${UMSYNC_SOURCE_DIR}/test/package/consumer)
foreach(mode find_package add_subdirectory)
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/${mode}
      -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
      -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}
      -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}
      -DUMSYNC_CONSUMER_MODE=${mode}
      -DUMSYNC_SOURCE_DIR=${UMSYNC_SOURCE_DIR})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/${mode})
  if(NOT EXISTS ${WORK_DIR}/${mode}/consumer OR NOT EXISTS ${WORK_DIR}/${mode}/consumer_debug)
    message(FATAL_ERROR "the ${mode} consumer built no executable")
  endif()
  # The program runs everywhere: it prints the device probe (no GPU is not a failure here).
  run(${WORK_DIR}/${mode}/consumer)
  # consumer_debug links umsync::debug; its static_assert(umsync::debug_build) compiled.
  run(${WORK_DIR}/${mode}/consumer_debug)
  message(STATUS "${mode}: consumer and consumer_debug (umsync::debug) configured, built and ran")
endforeach()

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
