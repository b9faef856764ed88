// computer_naming.cpp — computer id slugs and container names.
#include "computer_naming.h"

namespace vc::container {

bool is_valid_computer_id(std::string_view id) {
  if (id.empty() || id.size() > 63) return false;
  auto is_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (char c : id) {
    if (!is_alnum(c) && c != '-') return false;
  }
  return is_alnum(id.front()) && is_alnum(id.back());
}

std::string container_name(std::string_view computer_id) {
  std::string name(kContainerNamePrefix);
  name.append(computer_id);
  return name;
}

std::string short_container_id(std::string_view container_id) {
  return std::string(container_id.substr(0, kShortIdLength));
}

}  // namespace vc::container
