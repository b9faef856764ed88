// window_selector.cpp — see window_selector.h.
#include "tools/window_selector.h"

#include <cstdint>
#include <optional>
#include <vector>

#include <vc-backend-1/vc_status.h>

#include "common/ascii_text.h"

namespace vc::tools {
namespace {

// Python's int(v, 0) for the forms a window id takes: decimal, 0x/0o/0b prefixes, optional
// sign and underscores between digits are not worth supporting for ids.
std::optional<uint64_t> as_window_number(const std::string& value) {
  std::string text = ascii_lower(trim_ascii_whitespace(value));
  if (text.empty()) return std::nullopt;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o' || text[1] == 'b')) {
    base = text[1] == 'x' ? 16 : text[1] == 'o' ? 8 : 2;
    text = text.substr(2);
  } else if (text.size() > 1 && text[0] == '0') {
    return std::nullopt;  // Python refuses "010" in base 0
  }
  uint64_t number = 0;
  for (char c : text) {
    int digit = 0;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else {
      return std::nullopt;
    }
    if (digit >= base) return std::nullopt;
    if (number > (UINT64_MAX - static_cast<uint64_t>(digit)) / static_cast<uint64_t>(base)) {
      return std::nullopt;
    }
    number = number * static_cast<uint64_t>(base) + static_cast<uint64_t>(digit);
  }
  return number;
}

std::string text_of(const Json& window, const char* key) {
  auto it = window.find(key);
  return it != window.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<uint64_t> id_of(const Json& window) {
  return as_window_number(text_of(window, "window_id"));
}

Expected<Json> one_of(const std::vector<const Json*>& matches, const std::string& selector) {
  if (matches.empty()) {
    return Failure{VC_E_NOT_FOUND, "Window '" + selector + "' was not found."};
  }
  if (matches.size() > 1) {
    std::string ids;
    for (size_t i = 0; i < matches.size() && i < 8; ++i) {
      if (i > 0) ids += ", ";
      ids += text_of(*matches[i], "window_id");
    }
    return Failure{VC_E_INVALID_ARGUMENT, "Window selector is ambiguous; use one of: " + ids + "."};
  }
  return *matches.front();
}

}  // namespace

Expected<Json> select_window(const Json& windows, const std::string& selector) {
  std::vector<const Json*> all;
  if (windows.is_array()) {
    for (const Json& window : windows) {
      if (window.is_object()) all.push_back(&window);
    }
  }
  if (auto number = as_window_number(selector)) {
    std::vector<const Json*> matches;
    for (const Json* window : all) {
      if (id_of(*window) == number) matches.push_back(window);
    }
    return one_of(matches, selector);
  }
  const std::string wanted = ascii_lower(selector);
  std::vector<const Json*> exact;
  for (const Json* window : all) {
    if (ascii_lower(text_of(*window, "title")) == wanted ||
        ascii_lower(text_of(*window, "wm_class")) == wanted) {
      exact.push_back(window);
    }
  }
  if (!exact.empty()) return one_of(exact, selector);
  std::vector<const Json*> partial;
  for (const Json* window : all) {
    if (ascii_lower(text_of(*window, "title")).find(wanted) != std::string::npos ||
        ascii_lower(text_of(*window, "wm_class")).find(wanted) != std::string::npos) {
      partial.push_back(window);
    }
  }
  return one_of(partial, selector);
}

}  // namespace vc::tools
