// image_reference.h — splitting an image reference into the parts POST /images/create wants.
// Pure; any thread.
#pragma once

#include <string>
#include <string_view>

namespace vc::container {

struct PullTarget {
  std::string from_image;  // repository, with registry host when given: "debian", "ghcr.io/a/b"
  std::string tag;         // tag or digest: "bookworm-slim", "latest", "sha256:..."
};

// "debian:bookworm-slim" -> {"debian","bookworm-slim"}; "localhost:5000/x" -> {.., "latest"};
// "x@sha256:ab" -> {"x","sha256:ab"}. A reference without tag or digest pulls "latest" (the
// API would otherwise pull every tag).
PullTarget pull_target(std::string_view reference);

}  // namespace vc::container
