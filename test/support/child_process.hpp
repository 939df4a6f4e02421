// Running one of this test executable's own (otherwise skipped) cases in a child process: for
// cases that end the CUDA context on purpose (a device trap), which no later case could survive.
#pragma once

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

namespace umsync_test {

/// Runs `command` through the shell; returns its output (stdout and whatever it redirects).
inline std::string run_and_capture(std::string const& command, int& exit_status)
{
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 512> chunk{};
  while (std::fgets(chunk.data(), static_cast<int>(chunk.size()), pipe) != nullptr) {
    output += chunk.data();
  }
  exit_status = pclose(pipe);
  return output;
}

/// The path of the running executable.
inline std::string this_executable()
{
  std::array<char, 4096> path{};
  ssize_t const length = readlink("/proc/self/exe", path.data(), path.size() - 1);
  REQUIRE(length > 0);
  return std::string(path.data(), static_cast<std::size_t>(length));
}

/// `text` as one single-quoted shell word.
inline std::string shell_quoted(std::string const& text)
{
  std::string quoted = "'";
  for (char const c : text) {
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return quoted + "'";
}

/// Runs this executable's test case `name` (declared with doctest::skip()) in a child process
/// and returns its output, stdout and stderr together.
inline std::string run_own_case(char const* name, int& exit_status)
{
  std::string const command = shell_quoted(this_executable()) + " --no-skip=true --no-intro=true " +
                              shell_quoted(std::string("--test-case=") + name) + " 2>&1";
  return run_and_capture(command, exit_status);
}

}  // namespace umsync_test
