// test_folder.h — a temporary folder for one test, with the files the test writes in it
// (kubeconfigs, PEMs, token files, exec plugin scripts); removed with its contents at the end.
//
// Not thread-safe: one test's thread.
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace vc::kubernetes::testing {

// Stand-ins for PEM files: the loader checks for a -----BEGIN line and passes bytes on.
inline const std::string kCaPem =
    "-----BEGIN CERTIFICATE-----\nZmFrZSBjYQ==\n-----END CERTIFICATE-----\n";
inline const std::string kCaPemBase64 =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClptRnJaU0JqWVE9PQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==";
inline const std::string kClientPem =
    "-----BEGIN CERTIFICATE-----\nY2xpZW50\n-----END CERTIFICATE-----\n";
inline const std::string kClientPemBase64 =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClkyeHBaVzUwCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";
inline const std::string kKeyPem = "-----BEGIN PRIVATE KEY-----\na2V5\n-----END PRIVATE KEY-----\n";
inline const std::string kKeyPemBase64 =
    "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCmEyVjUKLS0tLS1FTkQgUFJJVkFURSBLRVktLS0tLQo=";

class TestFolder {
 public:
  TestFolder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "vc-kubeconfig-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TestFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TestFolder(const TestFolder&) = delete;
  TestFolder& operator=(const TestFolder&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  // Writes `text` to <folder>/<name> (folders created) and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::filesystem::path target = file(name);
    std::filesystem::create_directories(target.parent_path());
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + target.string());
    return target.string();
  }

  // Writes an executable /bin/sh script with `body` after its #! line.
  std::string script(const std::string& name, const std::string& body) const {
    const std::string path = write(name, "#!/bin/sh\n" + body + "\n");
    ::chmod(path.c_str(), 0755);
    return path;
  }

 private:
  std::string path_;
};

}  // namespace vc::kubernetes::testing
