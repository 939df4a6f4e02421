# umsync-telemetry.cmake: umsync::telemetry, the CUPTI unified-memory counters
# (include/umsync/telemetry/). A separate target because it links libcupti, which the rest of
# umsync does not need. Included from the top CMakeLists.txt after the umsync target exists.
#
# FindCUDAToolkit (run by umsync-toolkit.cmake) defines CUDA::cupti when the toolkit has
# CUPTI; without it there is no telemetry target, and the tests and example that need it are
# left out with a message.
if(NOT TARGET CUDA::cupti)
  message(STATUS "umsync: CUPTI not found in the CUDA toolkit; umsync::telemetry is not built")
  return()
endif()

add_library(umsync_telemetry INTERFACE)
add_library(umsync::telemetry ALIAS umsync_telemetry)
set_target_properties(umsync_telemetry PROPERTIES EXPORT_NAME telemetry)
target_link_libraries(umsync_telemetry INTERFACE umsync::umsync CUDA::cupti)

# Exported with umsync's targets; the headers are installed with the rest of include/umsync.
install(TARGETS umsync_telemetry EXPORT umsync-targets)
