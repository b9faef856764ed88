// build_context.cpp — tar_build_context() on TarArchive.
#include "build_context.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include "tar_archive.h"

namespace vc::container {
namespace {

OpFailure context_failure(vc_status status, std::string message) {
  return OpFailure{status, std::move(message), nullptr};
}

}  // namespace

Expected<std::string> tar_build_context(std::string_view folder_text) {
  namespace fs = std::filesystem;
  const fs::path folder(folder_text);
  std::error_code error;
  std::vector<fs::path> paths;
  for (auto it = fs::recursive_directory_iterator(folder, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const auto status = it->symlink_status(error);
    if (error) break;
    if (fs::is_symlink(status) || !(fs::is_regular_file(status) || fs::is_directory(status))) {
      return context_failure(VC_E_INVALID_ARGUMENT,
                             "The desktop image's build context holds " + it->path().string() +
                                 ", which is neither a file nor a folder; remove it.");
    }
    paths.push_back(it->path());
  }
  if (error) {
    return context_failure(VC_E_FAILED, "Cannot read the desktop image's build context " +
                                            folder.string() + ": " + error.message() + ".");
  }
  std::sort(paths.begin(), paths.end());

  TarArchive tar;
  for (const auto& path : paths) {
    const std::string name = path.lexically_relative(folder).generic_string();
    const auto permissions =
        static_cast<unsigned>(fs::status(path, error).permissions() & fs::perms::mask);
    if (fs::is_directory(path, error)) {
      if (auto added = tar.add_folder(name, permissions); !added.ok()) return added.error();
      continue;
    }
    std::ifstream file(path, std::ios::binary);
    const std::string content((std::istreambuf_iterator<char>(file)),
                              std::istreambuf_iterator<char>());
    if (!file.good() && !file.eof()) {
      return context_failure(VC_E_FAILED, "Cannot read " + path.string() + ".");
    }
    if (auto added = tar.add_file(name, permissions, content); !added.ok()) return added.error();
  }
  auto archive = tar.finish();
  if (!archive.ok()) {
    return context_failure(VC_E_FAILED, "Cannot finish the build context archive.");
  }
  return std::move(archive.value());
}

}  // namespace vc::container
