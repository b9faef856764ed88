// tar_archive.cpp — TarArchive on libarchive.
#include "tar_archive.h"

#include <archive.h>
#include <archive_entry.h>

namespace vc::container {
namespace {

struct EntryCloser {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

la_ssize_t append_to_string(archive*, void* client, const void* buffer, size_t length) {
  static_cast<std::string*>(client)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

}  // namespace

void TarArchive::Closer::operator()(archive* a) const { archive_write_free(a); }

TarArchive::TarArchive() : writer_(archive_write_new()) {
  open_ = writer_ && archive_write_set_format_ustar(writer_.get()) == ARCHIVE_OK &&
          archive_write_set_bytes_in_last_block(writer_.get(), 1) == ARCHIVE_OK &&
          archive_write_open(writer_.get(), &bytes_, nullptr, append_to_string, nullptr) ==
              ARCHIVE_OK;
}

TarArchive::~TarArchive() = default;

Expected<Done> TarArchive::add_folder(std::string_view name, unsigned permissions) {
  return add(name, true, permissions, {});
}

Expected<Done> TarArchive::add_file(std::string_view name, unsigned permissions,
                                    std::string_view content) {
  return add(name, false, permissions, content);
}

Expected<Done> TarArchive::add(std::string_view name, bool is_folder, unsigned permissions,
                               std::string_view content) {
  if (!open_) return OpFailure{VC_E_NO_MEMORY, "Cannot start a tar archive.", nullptr};
  std::unique_ptr<archive_entry, EntryCloser> entry(archive_entry_new());
  const std::string path = is_folder ? std::string(name) + "/" : std::string(name);
  archive_entry_set_pathname(entry.get(), path.c_str());
  archive_entry_set_filetype(entry.get(), is_folder ? AE_IFDIR : AE_IFREG);
  archive_entry_set_perm(entry.get(), static_cast<mode_t>(permissions));
  archive_entry_set_size(entry.get(), static_cast<la_int64_t>(content.size()));
  archive_entry_set_uid(entry.get(), 0);
  archive_entry_set_gid(entry.get(), 0);
  archive_entry_set_mtime(entry.get(), 0, 0);
  if (archive_write_header(writer_.get(), entry.get()) != ARCHIVE_OK ||
      (!content.empty() && archive_write_data(writer_.get(), content.data(), content.size()) !=
                               static_cast<la_ssize_t>(content.size()))) {
    return OpFailure{VC_E_FAILED,
                     "Cannot archive " + path + ": " + archive_error_string(writer_.get()) + ".",
                     nullptr};
  }
  return Done{};
}

Expected<std::string> TarArchive::finish() {
  if (!open_ || archive_write_close(writer_.get()) != ARCHIVE_OK) {
    return OpFailure{VC_E_FAILED, "Cannot finish a tar archive.", nullptr};
  }
  open_ = false;
  return std::string(std::move(bytes_));
}

}  // namespace vc::container
