# umsync-nccl.cmake: finds NCCL (it ships with the CUDA toolkit: include/nccl.h, lib64/libnccl.so)
# and provides umsync::nccl, an imported target that links libnccl and umsync::umsync, for
# programs that include <umsync/nccl/...>. Shared by umsync's own build and the installed
# package (umsync-config.cmake includes it after umsync-toolkit.cmake).
#
# Looks next to the CUDA toolkit first, then under NCCL_ROOT / NCCL_HOME (for a separate
# install). Sets UMSYNC_NCCL_FOUND, and UMSYNC_NCCL_REASON when it is false.

include_guard(GLOBAL)

if(NOT CUDAToolkit_FOUND)
  find_package(CUDAToolkit 13.0 QUIET)
endif()

set(_umsync_nccl_hints ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT})
find_path(UMSYNC_NCCL_INCLUDE_DIR nccl.h
  HINTS ${_umsync_nccl_hints} ENV NCCL_ROOT ENV NCCL_HOME
  PATH_SUFFIXES include ../include)
find_library(UMSYNC_NCCL_LIBRARY nccl
  HINTS ${_umsync_nccl_hints} ENV NCCL_ROOT ENV NCCL_HOME
  PATH_SUFFIXES lib64 lib)
unset(_umsync_nccl_hints)
mark_as_advanced(UMSYNC_NCCL_INCLUDE_DIR UMSYNC_NCCL_LIBRARY)

set(UMSYNC_NCCL_FOUND FALSE)
set(UMSYNC_NCCL_REASON "")
if(NOT UMSYNC_NCCL_INCLUDE_DIR OR NOT EXISTS "${UMSYNC_NCCL_INCLUDE_DIR}/nccl.h")
  set(UMSYNC_NCCL_REASON "nccl.h not found next to the CUDA toolkit (${CUDAToolkit_INCLUDE_DIRS}) or under NCCL_ROOT/NCCL_HOME")
elseif(NOT UMSYNC_NCCL_LIBRARY OR NOT EXISTS "${UMSYNC_NCCL_LIBRARY}")
  set(UMSYNC_NCCL_REASON "libnccl not found next to the CUDA toolkit (${CUDAToolkit_LIBRARY_DIR}) or under NCCL_ROOT/NCCL_HOME")
else()
  set(UMSYNC_NCCL_FOUND TRUE)
  if(NOT TARGET umsync::nccl)
    add_library(umsync::nccl INTERFACE IMPORTED GLOBAL)
    set_target_properties(umsync::nccl PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${UMSYNC_NCCL_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "umsync::umsync;${UMSYNC_NCCL_LIBRARY}")
  endif()
endif()
