// GPU tests of umsync/memory/pool_ipc.hpp with two real processes: this test spawns the test
// executable again as a child that imports the pool and two allocations, transforms one into
// the other, and exits; the parent checks the result. A watchdog kills a child that hangs.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/memory/copy.hpp>
#include <umsync/memory/pool_ipc.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace {

char const* env(char const* name)
{
  char const* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// Runs this executable again with `extra_env`; returns its exit status, or -1 on timeout.
int run_child(std::vector<std::string> const& extra_env, std::chrono::seconds timeout)
{
  std::vector<std::string> environment(extra_env);
  for (char** e = environ; *e != nullptr; ++e) {
    environment.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (auto& entry : environment) {
    envp.push_back(entry.data());
  }
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe";
  std::string filter = "--test-case=pool ipc child*";
  std::string no_skip = "--no-skip=true";
  std::string quiet = "--no-intro=true";
  char* argv[] = {exe.data(), filter.data(), no_skip.data(), quiet.data(), nullptr};
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, envp.data()) == 0);
  auto const deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("pool ipc: a second process imports two allocations, reads one and writes the other")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 20) + (rng() % 4096);
  std::uint32_t const key = static_cast<std::uint32_t>(rng());
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  std::vector<std::uint32_t> output(n, 0);
  {
    umsync::memory_pool pool({.exportable = true});
    umsync::stream<> const s;
    umsync::stream_buffer<std::uint32_t> in(n, s, pool);
    umsync::stream_buffer<std::uint32_t> out(n, s, pool);
    umsync::copy_sync_pageable(in, input, s);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, out.size_bytes(), s.view()));  // poison
    s.synchronize();  // the allocations and writes complete before the child touches them

    umsync::file_descriptor fd = umsync::export_pool(pool);
    REQUIRE(fd.get() >= 0);
    REQUIRE(fcntl(fd.get(), F_SETFD, 0) == 0);  // inherited by the child
    int const status = run_child({"UMSYNC_IPC_FD=" + std::to_string(fd.get()),
                                  "UMSYNC_IPC_IN=" + umsync::export_allocation(in.data()).to_text(),
                                  "UMSYNC_IPC_OUT=" + umsync::export_allocation(out.data()).to_text(),
                                  "UMSYNC_IPC_COUNT=" + std::to_string(n), "UMSYNC_IPC_KEY=" + std::to_string(key)},
                                 std::chrono::seconds(120));
    CHECK_MESSAGE(status == 0, "child exit status " << status << " (-1: killed by the watchdog)");
    umsync::copy_sync_pageable(output, out, s);
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += output[i] != (input[i] ^ key) ? 1 : 0;
  }
  CHECK(wrong == 0);
}

TEST_CASE("pool ipc child: imports, transforms, frees (run by the test above)" * doctest::skip())
{
  REQUIRE(std::string(env("UMSYNC_IPC_FD")) != "");
  int const fd = std::atoi(env("UMSYNC_IPC_FD"));
  std::size_t const n = std::strtoull(env("UMSYNC_IPC_COUNT"), nullptr, 10);
  auto const key = static_cast<std::uint32_t>(std::strtoul(env("UMSYNC_IPC_KEY"), nullptr, 10));
  umsync::memory_pool pool = umsync::import_pool(fd);
  ::close(fd);
  umsync::stream<> const s;
  {
    umsync::imported_allocation<std::uint32_t> in(pool, umsync::allocation_token::from_text(env("UMSYNC_IPC_IN")), n);
    umsync::imported_allocation<std::uint32_t> out(pool, umsync::allocation_token::from_text(env("UMSYNC_IPC_OUT")), n);
    umsync_test::xor_with<<<264, 256, 0, s.view()>>>(in.data(), out.data(), n, key);
    umsync_test::check_launch("xor_with");
    s.synchronize();
    CHECK(cudaGetLastError() == cudaSuccess);
  }  // the importer frees its views before the exporter frees the allocations
}

TEST_CASE("allocation tokens round-trip as text and reject malformed text")
{
  umsync::allocation_token token;
  for (std::size_t i = 0; i < sizeof token.data.reserved; ++i) {
    token.data.reserved[i] = static_cast<unsigned char>(i * 37 + 11);
  }
  auto const back = umsync::allocation_token::from_text(token.to_text());
  CHECK(std::equal(std::begin(back.data.reserved), std::end(back.data.reserved), std::begin(token.data.reserved)));
  CHECK_THROWS_AS(static_cast<void>(umsync::allocation_token::from_text("abc")), umsync::invalid_argument);
  CHECK_THROWS_AS(static_cast<void>(umsync::allocation_token::from_text(std::string(128, 'g'))),
                  umsync::invalid_argument);
}
