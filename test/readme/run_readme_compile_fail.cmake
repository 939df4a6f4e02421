cmake_minimum_required(VERSION 3.25)
# compile_fail.readme_blocks: every README block marked expect-compile-error must fail to compile
# with the README's text and no other error, and its control build must compile. Runs
# cmake/umsync-compile-fail.cmake on each readme_compile_fail_block_<N>.cu that
# test/scripts/readme_blocks.py wrote (the umsync_readme_blocks target, built with the tests).
#   cmake -DNVCC=... -DFLAGS="a|b" -DBLOCK_DIR=... -DHARNESS=... -DWORK_DIR=... -P run_readme_compile_fail.cmake

if(NOT EXISTS ${BLOCK_DIR}/readme_blocks.txt)
  message(FATAL_ERROR "${BLOCK_DIR}/readme_blocks.txt is missing: build the target umsync_readme_blocks first")
endif()
file(STRINGS ${BLOCK_DIR}/readme_blocks.txt lines)
set(checked 0)
set(failed "")
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^([0-9]+) expect-compile-error$")
    continue()
  endif()
  set(number ${CMAKE_MATCH_1})
  execute_process(COMMAND ${CMAKE_COMMAND}
      -DNVCC=${NVCC} -DSOURCE=${BLOCK_DIR}/readme_compile_fail_block_${number}.cu -DFLAGS=${FLAGS}
      -DWORK_DIR=${WORK_DIR}/block_${number} -P ${HARNESS}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("README block ${number}: ${out}")
  math(EXPR checked "${checked} + 1")
  if(NOT rc EQUAL 0)
    list(APPEND failed ${number})
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "README blocks marked expect-compile-error that failed their check: ${failed}")
endif()
message(STATUS "${checked} README block(s) marked expect-compile-error: rejected as expected, control builds compile")
