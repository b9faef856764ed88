// computer_info.h — the computer info document (schemas/computer_info.json) that create,
// attach, restart, factory_reset, the setters and list report.
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp). Report the
// effective settings, not the requested ones: the host tells the user what differs.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace vc::sdk {

struct ComputerInfo {
  std::string computer_id;
  std::string sandbox_id;  // the backend's own name for it; the host only displays it
  std::string state = "running";  // created, running, paused, restarting, stopped, dead
  bool temporary = false;
  std::optional<std::string> image;
  std::optional<std::string> created_at;  // RFC 3339
  bool network_access = true;
  bool desktop_environment = false;
  std::optional<std::string> desktop_url;
  // Optional sentences for the person watching (the host shows them in computer_ui and
  // runtime_status): what survives a restart of the computer, and how a network that is off
  // is enforced. Left out of the document when not set.
  std::optional<std::string> persistence;
  std::optional<std::string> network_enforcement;

  // [any-thread]
  nlohmann::json to_json() const {
    auto or_null = [](const std::optional<std::string>& value) {
      return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
    };
    nlohmann::json document = {{"computer_id", computer_id},
                               {"sandbox_id", sandbox_id},
                               {"state", state},
                               {"temporary", temporary},
                               {"image", or_null(image)},
                               {"created_at", or_null(created_at)},
                               {"network_access", network_access},
                               {"desktop_environment", desktop_environment},
                               {"desktop_url", or_null(desktop_url)}};
    if (persistence) document["persistence"] = *persistence;
    if (network_enforcement) document["network_enforcement"] = *network_enforcement;
    return document;
  }
};

}  // namespace vc::sdk
