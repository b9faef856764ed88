// computer_naming.cpp — container names and the short ids users see.
#include "computer_naming.h"

namespace vc::container {

std::string container_name(std::string_view computer_id) {
  std::string name(kContainerNamePrefix);
  name.append(computer_id);
  return name;
}

std::string short_container_id(std::string_view container_id) {
  return std::string(container_id.substr(0, kShortIdLength));
}

}  // namespace vc::container
