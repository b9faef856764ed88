// desktop_image.h — the bundled desktop image: its tag, its version, and where its build context
// (the project's desktop_image/ folder) lies once the plugin is installed.
//
// The plugin builds the image itself through the engine's build API when it is missing or its
// version label differs from desktop_image_version(), the digest of the build context taken when
// the plugin was built: changing any file of the context therefore rebuilds the image on the next
// start, on Docker and Podman alike. Pure lookups; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vc::container {

// The tag the plugins build and the default image of new computers (the original's).
inline constexpr std::string_view kDesktopImageTag = "mcp-virtual-computer-desktop:bookworm";
// The image label carrying the version; the Dockerfile sets it from the VC_IMAGE_VERSION build
// argument.
inline constexpr const char* kImageVersionLabel = "mcp-virtual-computer.image-version";
inline constexpr const char* kImageVersionBuildArg = "VC_IMAGE_VERSION";
// The name of the build context folder installed beside the plugin file.
inline constexpr std::string_view kContextFolderName = "desktop-image";

// The version this plugin builds: "sha256-<first 16 hex digits of the context digest>".
std::string_view desktop_image_version();

// True for the bundled image's tag (with or without a registry prefix Podman adds:
// "localhost/mcp-virtual-computer-desktop:bookworm").
bool is_desktop_image(std::string_view image);

// The build context folder: `configured` when not empty, else the folder kContextFolderName next
// to the file this plugin was loaded from. Checks that it holds a Dockerfile; otherwise returns
// nullopt and sets `error` to a sentence naming the folder looked at and the option that
// overrides it.
std::optional<std::string> locate_desktop_image_context(std::string_view configured,
                                                        std::string& error);

}  // namespace vc::container
