// temp_directory.h — a directory under the system's temporary directory, removed with its
// contents when the object goes away.
#pragma once

#include <filesystem>
#include <string>

namespace vc::test {

class TempDirectory {
 public:
  explicit TempDirectory(const std::string& prefix = "vc-test");
  ~TempDirectory();
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace vc::test
