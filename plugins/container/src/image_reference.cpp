// image_reference.cpp — image reference parsing for pulls.
#include "image_reference.h"

namespace vc::container {

PullTarget pull_target(std::string_view reference) {
  if (auto at = reference.find('@'); at != std::string_view::npos) {
    return {std::string(reference.substr(0, at)), std::string(reference.substr(at + 1))};
  }
  // A ':' after the last '/' separates the tag; one before it belongs to a registry port.
  auto slash = reference.rfind('/');
  auto colon = reference.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    return {std::string(reference.substr(0, colon)), std::string(reference.substr(colon + 1))};
  }
  return {std::string(reference), "latest"};
}

}  // namespace vc::container
