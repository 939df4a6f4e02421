// umsync_bench: the benchmark comparison. Says plainly when there is no GPU and exits
// non-zero, so a machine without one cannot produce an empty "success". Asked only for the list
// (--benchmark_list_tests=true), it prints the list there too before saying so, and still exits
// non-zero: what this build would run can be read on a machine without a GPU.
#include <benchmark/benchmark.h>
#include <umsync/device.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace {
// Host-side figures (allocation, launch, event edges, fault-driven migration) follow the CPU
// the driver runs on; the lent VMs differ in it between loans, so each run records it.
std::string host_cpu_model()
{
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto const colon = line.find(':');
      if (colon != std::string::npos) {
        return line.substr(line.find_first_not_of(' ', colon + 1));
      }
    }
  }
  return "unknown";
}

bool only_lists(int argc, char** argv)
{
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--benchmark_list_tests") == 0 ||
        std::strcmp(argv[i], "--benchmark_list_tests=true") == 0) {
      return true;
    }
  }
  return false;
}
}  // namespace

int main(int argc, char** argv)
{
  umsync::device_probe const probe = umsync::probe_devices();
  if (!probe.usable()) {
    if (only_lists(argc, argv)) {  // names only: no benchmark body runs
      benchmark::Initialize(&argc, argv);
      benchmark::RunSpecifiedBenchmarks();
      benchmark::Shutdown();
      std::fflush(stdout);
    }
    std::fprintf(stderr, "umsync_bench: %s. The benchmarks measure a GPU and cannot run here.\n",
                 probe.reason().c_str());
    return 1;
  }
  cudaDeviceProp props{};
  int driver = 0;
  int runtime = 0;
  if (cudaGetDeviceProperties(&props, 0) != cudaSuccess || cudaDriverGetVersion(&driver) != cudaSuccess ||
      cudaRuntimeGetVersion(&runtime) != cudaSuccess) {
    std::fprintf(stderr, "umsync_bench: could not read the device's properties\n");
    return 1;
  }
  benchmark::AddCustomContext("gpu", props.name);
  benchmark::AddCustomContext("cuda_driver", std::to_string(driver));
  benchmark::AddCustomContext("cuda_runtime", std::to_string(runtime));
  benchmark::AddCustomContext("host_cpu", host_cpu_model());
  std::printf("umsync_bench on %s (sm_%d%d, %d SMs), driver %d, runtime %d\n", props.name, props.major, props.minor,
              props.multiProcessorCount, driver, runtime);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
