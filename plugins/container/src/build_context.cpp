// build_context.cpp — tar_build_context() on libarchive.
#include "build_context.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <system_error>
#include <vector>

namespace vc::container {
namespace {

struct ArchiveCloser {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryCloser {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

la_ssize_t append_to_string(archive*, void* client, const void* buffer, size_t length) {
  static_cast<std::string*>(client)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

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

  std::string tar;
  std::unique_ptr<archive, ArchiveCloser> writer(archive_write_new());
  if (!writer || archive_write_set_format_ustar(writer.get()) != ARCHIVE_OK ||
      archive_write_set_bytes_in_last_block(writer.get(), 1) != ARCHIVE_OK ||
      archive_write_open(writer.get(), &tar, nullptr, append_to_string, nullptr) != ARCHIVE_OK) {
    return context_failure(VC_E_NO_MEMORY, "Cannot start the build context archive.");
  }
  for (const auto& path : paths) {
    const std::string name = path.lexically_relative(folder).generic_string();
    const bool is_folder = fs::is_directory(path, error);
    std::string content;
    if (!is_folder) {
      std::ifstream file(path, std::ios::binary);
      content.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
      if (!file.good() && !file.eof()) {
        return context_failure(VC_E_FAILED, "Cannot read " + path.string() + ".");
      }
    }
    const auto permissions = fs::status(path, error).permissions();
    std::unique_ptr<archive_entry, EntryCloser> entry(archive_entry_new());
    archive_entry_set_pathname(entry.get(), is_folder ? (name + "/").c_str() : name.c_str());
    archive_entry_set_filetype(entry.get(), is_folder ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(entry.get(), static_cast<mode_t>(permissions & fs::perms::mask));
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(content.size()));
    archive_entry_set_uid(entry.get(), 0);
    archive_entry_set_gid(entry.get(), 0);
    archive_entry_set_mtime(entry.get(), 0, 0);
    if (archive_write_header(writer.get(), entry.get()) != ARCHIVE_OK ||
        (!content.empty() &&
         archive_write_data(writer.get(), content.data(), content.size()) !=
             static_cast<la_ssize_t>(content.size()))) {
      return context_failure(VC_E_FAILED, "Cannot archive " + path.string() + ": " +
                                              archive_error_string(writer.get()) + ".");
    }
  }
  if (archive_write_close(writer.get()) != ARCHIVE_OK) {
    return context_failure(VC_E_FAILED, "Cannot finish the build context archive.");
  }
  return tar;
}

}  // namespace vc::container
