cmake_minimum_required(VERSION 3.25)
# Installs umsync into a temporary prefix and builds the consumer project twice: once with
# find_package(umsync CONFIG REQUIRED), once with add_subdirectory on the source tree.

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
  if(NOT EXISTS ${WORK_DIR}/${mode}/consumer)
    message(FATAL_ERROR "the ${mode} consumer built no executable")
  endif()
  # The program runs everywhere: it prints the device probe (no GPU is not a failure here).
  run(${WORK_DIR}/${mode}/consumer)
  message(STATUS "${mode}: consumer configured, built and ran")
endforeach()
