# umsync-rmm.cmake: finds RMM (RAPIDS Memory Manager, the pip wheel librmm-cu13 or any install
# with include/rmm and librmm.so) and provides umsync::rmm, an imported target for programs that
# use RMM's resources and containers with umsync's streams, pools and buffers: umsync::umsync,
# librmm, librapids_logger, and the CCCL that RMM ships. Shared by umsync's own build and the
# installed package (umsync-config.cmake includes it after umsync-toolkit.cmake), as
# umsync-nccl.cmake is.
#
# UMSYNC_WITH_RMM: AUTO (the default: umsync::rmm when RMM is found), ON (not finding it is an
# error), OFF (not looked for). UMSYNC_RMM_ROOT names RMM's folder (the one holding include/rmm);
# otherwise the environment's RMM_ROOT, then the folder of the `librmm` Python package (what
# `pip install librmm-cu13` installs), then CMAKE_PREFIX_PATH and the system. Sets
# UMSYNC_RMM_FOUND, UMSYNC_RMM_VERSION, and UMSYNC_RMM_REASON when it is false.
#
# RMM's own package (find_package(rmm CONFIG)) is not used: its config files, and
# rapids_logger's, ask for CMake 4.0 (umsync asks for 3.25), and rmm::rmm links the static CUDA
# runtime next to the shared one umsync::umsync links. The target is built from the install's
# layout instead, with the compile definitions RMM's package gives its CCCL (librmm.so was built
# with them).
#
# The include rule: a translation unit that includes RMM must see RMM's CCCL (3.5 for RMM 26.x,
# in include/rapids) before the CUDA toolkit's (3.0 in CUDA 13.0), or RMM's headers meet an older
# cuda::mr. umsync::rmm gives RMM's CCCL folder as a plain -I, and umsync::umsync and nvcc give
# the toolkit's as -isystem; every -I folder is searched before every -isystem folder, so the
# order holds whatever order the targets are linked in. RMM's own headers stay system headers
# (umsync's warnings-as-errors do not apply to them); CCCL's headers mark themselves as such.

include_guard(GLOBAL)

set(UMSYNC_WITH_RMM AUTO CACHE STRING "umsync::rmm (RMM's resources with umsync): AUTO (when RMM is found), ON, OFF")
set_property(CACHE UMSYNC_WITH_RMM PROPERTY STRINGS AUTO ON OFF)
set(UMSYNC_RMM_ROOT "" CACHE PATH "RMM's folder (holding include/rmm); empty: RMM_ROOT, then pip's librmm, then the system")

set(UMSYNC_RMM_FOUND FALSE)
set(UMSYNC_RMM_REASON "")
set(UMSYNC_RMM_VERSION "")

function(_umsync_find_rmm)
  string(TOUPPER "${UMSYNC_WITH_RMM}" mode)
  if(mode STREQUAL "OFF" OR mode STREQUAL "FALSE" OR mode STREQUAL "NO" OR mode STREQUAL "0")
    set(UMSYNC_RMM_REASON "UMSYNC_WITH_RMM is ${UMSYNC_WITH_RMM}" PARENT_SCOPE)
    return()
  endif()

  # Where pip put the wheels: librmm (include/, lib64/) and rapids_logger (its own package).
  set(roots ${UMSYNC_RMM_ROOT} $ENV{RMM_ROOT})
  set(logger_roots "")
  find_program(UMSYNC_RMM_PYTHON NAMES python3 python DOC "the Python whose pip installed librmm-cu13")
  mark_as_advanced(UMSYNC_RMM_PYTHON)
  if(UMSYNC_RMM_PYTHON)
    # librmm/__init__.py does not load the library; only the package's folder is asked for.
    foreach(package librmm rapids_logger)
      execute_process(COMMAND ${UMSYNC_RMM_PYTHON} -c "import ${package}, os; print(os.path.dirname(${package}.__file__))"
        RESULT_VARIABLE rc OUTPUT_VARIABLE folder ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(rc EQUAL 0 AND IS_DIRECTORY "${folder}")
        if(package STREQUAL "librmm")
          list(APPEND roots "${folder}")
        else()
          list(APPEND logger_roots "${folder}")
        endif()
      endif()
    endforeach()
  endif()

  find_path(UMSYNC_RMM_INCLUDE_DIR rmm/device_buffer.hpp HINTS ${roots} PATH_SUFFIXES include)
  if(NOT UMSYNC_RMM_INCLUDE_DIR)
    set(UMSYNC_RMM_REASON "no rmm/device_buffer.hpp under UMSYNC_RMM_ROOT, RMM_ROOT, pip's librmm (pip install librmm-cu13) or the system" PARENT_SCOPE)
    return()
  endif()
  get_filename_component(prefix "${UMSYNC_RMM_INCLUDE_DIR}" DIRECTORY)
  find_library(UMSYNC_RMM_LIBRARY rmm HINTS ${prefix} ${roots} PATH_SUFFIXES lib64 lib NO_DEFAULT_PATH)
  find_path(UMSYNC_RMM_CCCL_INCLUDE_DIR cuda/std/__cccl/version.h HINTS ${UMSYNC_RMM_INCLUDE_DIR}/rapids NO_DEFAULT_PATH)
  find_path(UMSYNC_RMM_NVTX3_INCLUDE_DIR nvtx3/nvtx3.hpp HINTS ${UMSYNC_RMM_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
  find_path(UMSYNC_RMM_LOGGER_INCLUDE_DIR rapids_logger/logger.hpp HINTS ${logger_roots} ${prefix} PATH_SUFFIXES include)
  find_library(UMSYNC_RMM_LOGGER_LIBRARY rapids_logger HINTS ${logger_roots} ${prefix} PATH_SUFFIXES lib64 lib)
  mark_as_advanced(UMSYNC_RMM_INCLUDE_DIR UMSYNC_RMM_LIBRARY UMSYNC_RMM_CCCL_INCLUDE_DIR UMSYNC_RMM_NVTX3_INCLUDE_DIR
                   UMSYNC_RMM_LOGGER_INCLUDE_DIR UMSYNC_RMM_LOGGER_LIBRARY)

  if(NOT UMSYNC_RMM_LIBRARY)
    set(UMSYNC_RMM_REASON "rmm headers in ${UMSYNC_RMM_INCLUDE_DIR} but no librmm.so next to them" PARENT_SCOPE)
    return()
  elseif(NOT UMSYNC_RMM_CCCL_INCLUDE_DIR)
    set(UMSYNC_RMM_REASON "no CCCL in ${UMSYNC_RMM_INCLUDE_DIR}/rapids (RMM's CCCL, which its headers need)" PARENT_SCOPE)
    return()
  elseif(NOT UMSYNC_RMM_NVTX3_INCLUDE_DIR)
    set(UMSYNC_RMM_REASON "no nvtx3/nvtx3.hpp next to RMM's headers or the CUDA toolkit's" PARENT_SCOPE)
    return()
  elseif(NOT UMSYNC_RMM_LOGGER_INCLUDE_DIR OR NOT UMSYNC_RMM_LOGGER_LIBRARY)
    set(UMSYNC_RMM_REASON "rapids_logger (headers and librapids_logger.so; pip install rapids-logger) not found" PARENT_SCOPE)
    return()
  endif()

  # The versions, for the status line and for UMSYNC_RMM_VERSION.
  file(STRINGS "${UMSYNC_RMM_INCLUDE_DIR}/rmm/version_config.hpp" lines REGEX "#define RMM_VERSION_(MAJOR|MINOR|PATCH) ")
  set(version "")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "[0-9]+$" number "${line}")
    string(APPEND version ".${number}")
  endforeach()
  string(SUBSTRING "${version}" 1 -1 version)
  file(STRINGS "${UMSYNC_RMM_CCCL_INCLUDE_DIR}/cuda/std/__cccl/version.h" cccl REGEX "#define CCCL_VERSION [0-9]+")
  string(REGEX MATCH "[0-9]+$" cccl "${cccl}")
  math(EXPR cccl_major "${cccl} / 1000000")
  math(EXPR cccl_minor "(${cccl} / 1000) % 1000")

  if(NOT TARGET umsync::rmm)
    add_library(umsync::rmm INTERFACE IMPORTED GLOBAL)
    set_target_properties(umsync::rmm PROPERTIES
      # Not a system target, so that RMM's CCCL is a plain -I (see the include rule above).
      SYSTEM FALSE
      INTERFACE_INCLUDE_DIRECTORIES
        "${UMSYNC_RMM_CCCL_INCLUDE_DIR};${UMSYNC_RMM_INCLUDE_DIR};${UMSYNC_RMM_NVTX3_INCLUDE_DIR};${UMSYNC_RMM_LOGGER_INCLUDE_DIR}"
      INTERFACE_SYSTEM_INCLUDE_DIRECTORIES
        "${UMSYNC_RMM_INCLUDE_DIR};${UMSYNC_RMM_NVTX3_INCLUDE_DIR};${UMSYNC_RMM_LOGGER_INCLUDE_DIR}"
      # What RMM's package sets on its CCCL::CCCL (rmm-dependencies.cmake).
      INTERFACE_COMPILE_DEFINITIONS
        "CUB_DISABLE_NAMESPACE_MAGIC;CUB_IGNORE_NAMESPACE_MAGIC_ERROR;THRUST_DISABLE_ABI_NAMESPACE;THRUST_IGNORE_ABI_NAMESPACE_ERROR;CCCL_DISABLE_PDL"
      # librapids_logger is linked by name too: librmm.so finds it only next to itself
      # (RUNPATH $ORIGIN), and the wheels put it in another folder; the program's own RPATH
      # then brings it in.
      INTERFACE_LINK_LIBRARIES "umsync::umsync;${UMSYNC_RMM_LIBRARY};${UMSYNC_RMM_LOGGER_LIBRARY};${CMAKE_DL_LIBS}")
  endif()
  set(UMSYNC_RMM_FOUND TRUE PARENT_SCOPE)
  set(UMSYNC_RMM_VERSION "${version}" PARENT_SCOPE)
  set(UMSYNC_RMM_CCCL_VERSION "${cccl_major}.${cccl_minor}" PARENT_SCOPE)
endfunction()

_umsync_find_rmm()

string(TOUPPER "${UMSYNC_WITH_RMM}" _umsync_rmm_mode)
if(NOT UMSYNC_RMM_FOUND AND _umsync_rmm_mode STREQUAL "ON")
  message(FATAL_ERROR "umsync: UMSYNC_WITH_RMM is ON but RMM was not found (${UMSYNC_RMM_REASON}). "
                      "Install it (pip install librmm-cu13 rapids-logger), set UMSYNC_RMM_ROOT, or use UMSYNC_WITH_RMM=AUTO.")
endif()
unset(_umsync_rmm_mode)

# umsync's own build (not the installed package): say what was found, install this file with the
# package's, and offer the benchmark's registration to bench/CMakeLists.txt.
if(CMAKE_CURRENT_LIST_DIR STREQUAL "${PROJECT_SOURCE_DIR}/cmake" AND PROJECT_NAME STREQUAL "umsync")
  if(UMSYNC_RMM_FOUND)
    message(STATUS "umsync: RMM ${UMSYNC_RMM_VERSION} found in ${UMSYNC_RMM_INCLUDE_DIR} (its CCCL ${UMSYNC_RMM_CCCL_VERSION}): umsync::rmm")
  else()
    message(STATUS "umsync: RMM not found (${UMSYNC_RMM_REASON}): the umsync::rmm part and its tests are skipped")
  endif()
  install(FILES ${CMAKE_CURRENT_LIST_FILE} DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/umsync)

  # umsync_add_rmm_bench(<bench target> <main.cpp>): bench/rmm_bench.cu is not part of
  # umsync_bench (bench/CMakeLists.txt globs *_bench.cu): it needs RMM's CCCL, which the other
  # families must not be measured with. It builds as umsync_rmm_bench, next to umsync_bench,
  # where scripts/bench/run-benchmarks.sh looks for it (the rmm group), when umsync::rmm exists.
  function(umsync_add_rmm_bench bench_target main)
    set(source ${CMAKE_CURRENT_SOURCE_DIR}/rmm_bench.cu)
    get_target_property(sources ${bench_target} SOURCES)
    list(REMOVE_ITEM sources ${source})
    set_property(TARGET ${bench_target} PROPERTY SOURCES ${sources})
    if(NOT TARGET umsync::rmm)
      return()
    endif()
    add_executable(umsync_rmm_bench ${main} ${source})
    target_link_libraries(umsync_rmm_bench PRIVATE umsync_project_options umsync::rmm benchmark::benchmark)
    target_include_directories(umsync_rmm_bench PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  endfunction()
endif()
