// The test side of umsync_nvtx_injection (nvtx_injection.cpp): points NVTX at the injection
// library and reads back the ranges it wrote down.
//
//   auto& record = umsync_test::nvtx_record::open();  // before the process's first NVTX call
//   { umsync::detail::nvtx_range<umsync::detail::nvtx_words::edge, a, b> range; }
//   CHECK(record.take() == std::vector<std::string>{"push umsync: umsync edge a -> b", "pop umsync"});
//
// NVTX reads NVTX_INJECTION64_PATH once, at the first NVTX call of the process, so open() must
// come first. The library's path is UMSYNC_NVTX_INJECTION, defined by test/nvtx/CMakeLists.txt.
#pragma once

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace umsync_test {

class nvtx_record {
 public:
  /// Sets the injection's environment (once) and returns the record.
  static nvtx_record& open()
  {
    static nvtx_record record;
    return record;
  }

  nvtx_record(nvtx_record const&) = delete;
  nvtx_record& operator=(nvtx_record const&) = delete;
  ~nvtx_record() { std::filesystem::remove(path_); }

  /// The lines written since the last take(), without the injection's "init".
  std::vector<std::string> take()
  {
    std::ifstream file(path_);
    std::vector<std::string> lines;
    std::string line;
    std::size_t index = 0;
    while (std::getline(file, line)) {
      if (index++ >= read_ && line != "init") {
        lines.push_back(line);
      }
    }
    read_ = index;
    return lines;
  }

  /// True once the injection library was loaded and initialized (it writes "init" first).
  [[nodiscard]] bool loaded() const
  {
    std::ifstream file(path_);
    std::string first;
    return std::getline(file, first) && first == "init";
  }

  [[nodiscard]] std::filesystem::path const& path() const noexcept { return path_; }

 private:
  nvtx_record() : path_(std::filesystem::temp_directory_path() / ("umsync_nvtx_" + std::to_string(::getpid()) + ".txt"))
  {
    std::filesystem::remove(path_);
    ::setenv("NVTX_INJECTION64_PATH", UMSYNC_NVTX_INJECTION, 1);
    ::setenv("UMSYNC_NVTX_RECORD", path_.c_str(), 1);
  }

  std::filesystem::path path_;
  std::size_t read_ = 0;
};

}  // namespace umsync_test

/// A failed comparison of recorded lines shows the lines.
template <>
struct doctest::StringMaker<std::vector<std::string>> {
  static doctest::String convert(std::vector<std::string> const& lines)
  {
    std::string text = "{";
    for (std::string const& line : lines) {
      text += (text.size() > 1 ? ", \"" : "\"") + line + "\"";
    }
    return (text + "}").c_str();
  }
};
