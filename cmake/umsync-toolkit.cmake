# umsync-toolkit.cmake: what umsync needs from the CUDA toolchain, shared by umsync's own
# build and by the installed package (umsync-config.cmake includes it).
#
# - CUDA Toolkit 13.0 or newer.
# - C++20 for nvcc. CMake before 3.25.2 knows no -std flag for CUDA 20 (CMake issue 23079):
#   `cuda_std_20` is then an unknown feature, and CUDA_STANDARD 20 gives no flag at all.
#   We teach it the flag, in the caller's scope, so compile features work as usual.
# - CCCL's include folder (CUDA 13 moved it to include/cccl): nvcc finds it by itself, the
#   host compiler does not, and umsync's host-only headers include <cuda/stream_ref>.

if(umsync_FIND_QUIETLY)
  set(_umsync_quiet QUIET)
endif()
find_package(CUDAToolkit 13.0 REQUIRED ${_umsync_quiet})
unset(_umsync_quiet)

if(CMAKE_CUDA_COMPILER_LOADED AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  if(NOT "cuda_std_20" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
    list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
    set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
  endif()
endif()

set(UMSYNC_CCCL_INCLUDE_DIR "")
foreach(_umsync_dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
  if(EXISTS "${_umsync_dir}/cccl/cuda/stream_ref")
    set(UMSYNC_CCCL_INCLUDE_DIR "${_umsync_dir}/cccl")
    break()
  endif()
endforeach()
unset(_umsync_dir)
