// tar_archive.h — an in-memory ustar archive for the engine's archive-taking calls (POST /build,
// PUT /containers/{id}/archive).
//
// Every entry is owned by root (uid and gid 0) with its modification time zeroed, so the same
// entries always give the same bytes. Written with libarchive. Any thread; one archive per
// thread at a time.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "expected.h"

struct archive;

namespace vc::container {

class TarArchive {
 public:
  TarArchive();
  ~TarArchive();
  TarArchive(const TarArchive&) = delete;
  TarArchive& operator=(const TarArchive&) = delete;

  // `name` is relative ("a/b"); `permissions` the mode bits (0755).
  Expected<Done> add_folder(std::string_view name, unsigned permissions);
  Expected<Done> add_file(std::string_view name, unsigned permissions, std::string_view content);
  // The whole archive; no entry may be added afterwards.
  Expected<std::string> finish();

 private:
  Expected<Done> add(std::string_view name, bool is_folder, unsigned permissions,
                     std::string_view content);

  struct Closer {
    void operator()(archive* a) const;
  };
  std::string bytes_;
  std::unique_ptr<archive, Closer> writer_;
  bool open_ = false;
};

}  // namespace vc::container
