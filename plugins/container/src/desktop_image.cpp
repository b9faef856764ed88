// desktop_image.cpp — the bundled image's identity and the location of its build context.
#include "desktop_image.h"

#include <filesystem>
#include <system_error>

#include <vc_agent_channel/plugin_files.h>

#include "desktop_image_version.h"  // generated: kGeneratedDesktopImageVersion

namespace vc::container {

namespace {
// How a build context is laid out, for the errors that ask for one.
constexpr std::string_view kContextLayout =
    "a folder laid out as the plugin's desktop-image/ folder: the sources' desktop_image/ "
    "folder with their agents/common and agents/desktop_agent folders copied into it under "
    "agents/";
}  // namespace

std::string_view desktop_image_version() { return kGeneratedDesktopImageVersion; }

bool is_desktop_image(std::string_view image) {
  if (image == kDesktopImageTag) return true;
  for (std::string_view prefix : {"localhost/", "docker.io/library/"}) {
    if (image.size() == prefix.size() + kDesktopImageTag.size() && image.starts_with(prefix) &&
        image.substr(prefix.size()) == kDesktopImageTag) {
      return true;
    }
  }
  return false;
}

std::optional<std::string> locate_desktop_image_context(std::string_view configured,
                                                        std::string& error) {
  std::filesystem::path folder;
  if (!configured.empty()) {
    folder = std::filesystem::path(configured);
  } else {
    auto directory = agent_channel::plugin_directory();
    if (!directory) {
      error = "Cannot tell where this plugin was loaded from, so the desktop image's build "
              "context cannot be found; pass --desktop-image-context DIR (" +
              std::string(kContextLayout) + ").";
      return std::nullopt;
    }
    folder = *directory / kContextFolderName;
  }
  // The Dockerfile's first stage compiles the desktop agent from agents/: a context without it
  // would fail minutes into the build, so it is checked here with the Dockerfile.
  for (std::string_view required : {"Dockerfile", "agents/desktop_agent/CMakeLists.txt"}) {
    std::error_code status;
    if (!std::filesystem::is_regular_file(folder / required, status)) {
      error = "The desktop image's build context " + folder.string() + " has no " +
              std::string(required) + ". Reinstall the plugin with its " +
              std::string(kContextFolderName) + " folder, or pass --desktop-image-context DIR (" +
              std::string(kContextLayout) + ").";
      return std::nullopt;
    }
  }
  return folder.string();
}

}  // namespace vc::container
