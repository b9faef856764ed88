// backend_options.cpp — checking the plugin's options before any engine is contacted.
#include "backend_options.h"

#include <cctype>
#include <cmath>
#include <limits>

#include <unistd.h>

#include <vc_engine/engine_address.h>

namespace vc::container {
namespace {

// The value of option `name`, or null when absent.
const nlohmann::json& option_value(const nlohmann::json& options, std::string_view name) {
  static const nlohmann::json null_value;
  auto it = options.find(std::string(name));
  return it == options.end() ? null_value : *it;
}

std::string quoted(const nlohmann::json& value) {
  return value.is_string() ? "'" + value.get<std::string>() + "'" : value.dump();
}

bool contains_whitespace(std::string_view text) {
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) return true;
  }
  return false;
}

}  // namespace

MountOwner server_user() {
  return MountOwner{static_cast<unsigned>(::getuid()), static_cast<unsigned>(::getgid())};
}

std::optional<BackendOptions> parse_backend_options(const nlohmann::json& config,
                                                    std::string_view address_option,
                                                    std::string_view default_address,
                                                    std::string& error) {
  if (!config.is_object()) {
    error = "the backend configuration is not a JSON object";
    return std::nullopt;
  }
  static const nlohmann::json empty_options = nlohmann::json::object();
  auto options_it = config.find("options");
  const nlohmann::json& options =
      options_it != config.end() && options_it->is_object() ? *options_it : empty_options;
  BackendOptions parsed;

  // --- engine address -------------------------------------------------------------------------
  const auto& address = option_value(options, address_option);
  if (address.is_null() || (address.is_string() && address.get<std::string>().empty())) {
    parsed.engine_address = std::string(default_address);
  } else if (!address.is_string()) {
    error = "--" + std::string(address_option) + " must be an engine address such as " +
            std::string(default_address) + "; got " + address.dump();
    return std::nullopt;
  } else {
    parsed.engine_address = address.get<std::string>();
  }
  auto checked = engine::EngineAddress::parse(parsed.engine_address);
  if (!checked) {
    error = "--" + std::string(address_option) + " '" + parsed.engine_address +
            "' is not usable: " + checked.error().message +
            ". Examples: unix:///var/run/docker.sock, tcp://127.0.0.1:2375";
    return std::nullopt;
  }

  // --- image ----------------------------------------------------------------------------------
  const auto& image = option_value(options, option_names::kImage);
  if (!image.is_null()) {
    if (!image.is_string() || image.get<std::string>().empty() ||
        contains_whitespace(image.get<std::string>())) {
      error = "--image must be an image reference such as debian:bookworm-slim; got " +
              quoted(image);
      return std::nullopt;
    }
    parsed.image = image.get<std::string>();
  }

  // --- resources ------------------------------------------------------------------------------
  const auto& cpu = option_value(options, option_names::kCpu);
  if (!cpu.is_null()) {
    if (!cpu.is_number() || !std::isfinite(cpu.get<double>()) || cpu.get<double>() <= 0 ||
        cpu.get<double>() > 1e6) {
      error = "--cpu must be a positive number of CPUs such as 1 or 1.5; got " + quoted(cpu);
      return std::nullopt;
    }
    parsed.cpus = cpu.get<double>();
  }

  const auto& memory = option_value(options, option_names::kMemory);
  if (!memory.is_null()) {
    std::optional<std::int64_t> bytes;
    if (memory.is_string()) bytes = parse_memory_size(memory.get<std::string>());
    if (memory.is_number_unsigned()) bytes = memory.get<std::int64_t>();
    if (!bytes) {
      error = "--memory must be a size such as 512m or 2g (a whole number with an optional b, "
              "k, m or g suffix); got " + quoted(memory);
      return std::nullopt;
    }
    if (*bytes < kMinimumMemoryBytes) {
      error = "--memory must be at least 6m (the engine's minimum); got " + quoted(memory);
      return std::nullopt;
    }
    parsed.memory_bytes = bytes;
  }

  const auto& pids = option_value(options, option_names::kPidsLimit);
  if (!pids.is_null()) {
    if (!pids.is_number_integer() || pids.get<std::int64_t>() < 1) {
      error = "--pids-limit must be a whole number of processes of at least 1, such as 512; "
              "got " + quoted(pids);
      return std::nullopt;
    }
    parsed.pids_limit = pids.get<std::int64_t>();
  }

  // --- hardening ------------------------------------------------------------------------------
  const auto& harden = option_value(options, option_names::kHarden);
  if (!harden.is_null()) {
    if (!harden.is_boolean()) {
      error = "--harden is a switch (true or false); got " + quoted(harden);
      return std::nullopt;
    }
    parsed.harden = harden.get<bool>();
  }

  // --- create overrides -----------------------------------------------------------------------
  const auto& overrides = option_value(options, option_names::kCreateOverrides);
  if (!overrides.is_null() && !(overrides.is_string() && overrides.get<std::string>().empty())) {
    if (!overrides.is_string()) {
      error = "--create-overrides must be a JSON object given as a string";
      return std::nullopt;
    }
    nlohmann::json document;
    try {
      document = nlohmann::json::parse(overrides.get<std::string>());
    } catch (const nlohmann::json::parse_error& e) {
      error = "--create-overrides is not valid JSON (" + std::string(e.what()) +
              "). Pass a JSON object to merge into the engine's container create request, "
              "e.g. '{\"HostConfig\":{\"ShmSize\":268435456}}'";
      return std::nullopt;
    }
    if (!document.is_object()) {
      error = "--create-overrides must be a JSON object to merge into the engine's container "
              "create request, e.g. '{\"Env\":[\"LANG=C.UTF-8\"]}'; got " + document.dump();
      return std::nullopt;
    }
    parsed.create_overrides = std::move(document);
  }

  // --- engine timeout -------------------------------------------------------------------------
  const auto& timeout = option_value(options, option_names::kEngineTimeout);
  if (!timeout.is_null()) {
    if (!timeout.is_number_integer() || timeout.get<std::int64_t>() < 1 ||
        timeout.get<std::int64_t>() > 86400) {
      error = "--engine-timeout must be a whole number of seconds between 1 and 86400; got " +
              quoted(timeout);
      return std::nullopt;
    }
    parsed.engine_timeout = std::chrono::seconds(timeout.get<std::int64_t>());
  }

  // --- desktop image build context ------------------------------------------------------------
  const auto& context = option_value(options, option_names::kDesktopImageContext);
  if (!context.is_null()) {
    if (!context.is_string() || (!context.get<std::string>().empty() &&
                                 context.get<std::string>().front() != '/')) {
      error = "--desktop-image-context must be an absolute folder path such as "
              "/usr/local/src/mcp-virtual-computer/desktop_image; got " + quoted(context);
      return std::nullopt;
    }
    parsed.desktop_image_context = context.get<std::string>();
  }

  // --- exec agent -----------------------------------------------------------------------------
  const auto& agent = option_value(options, option_names::kExecAgent);
  if (!agent.is_null()) {
    const std::string mode = agent.is_string() ? agent.get<std::string>() : std::string();
    if (mode == "auto") {
      parsed.exec_agent = ExecAgentMode::kAuto;
    } else if (mode == "on") {
      parsed.exec_agent = ExecAgentMode::kOn;
    } else if (mode == "off") {
      parsed.exec_agent = ExecAgentMode::kOff;
    } else {
      error = "--exec-agent must be auto, on or off; got " + quoted(agent);
      return std::nullopt;
    }
  }
  const auto& agent_binary = option_value(options, option_names::kExecAgentBinary);
  if (!agent_binary.is_null()) {
    if (!agent_binary.is_string() || (!agent_binary.get<std::string>().empty() &&
                                      agent_binary.get<std::string>().front() != '/')) {
      error = "--exec-agent-binary must be an absolute file path such as "
              "/usr/local/lib/mcp-virtual-computer/backends/exec-agent/vc-exec-agent; got " +
              quoted(agent_binary);
      return std::nullopt;
    }
    parsed.exec_agent_binary = agent_binary.get<std::string>();
  }

  // --- checkpoints ----------------------------------------------------------------------------
  const auto& max_checkpoints = option_value(options, option_names::kMaxCheckpoints);
  if (!max_checkpoints.is_null()) {
    if (!max_checkpoints.is_number_integer() || max_checkpoints.get<std::int64_t>() < 1 ||
        max_checkpoints.get<std::int64_t>() > kMaxCheckpointsCeiling) {
      error = "--max-checkpoints must be a whole number between 1 and " +
              std::to_string(kMaxCheckpointsCeiling) + "; got " + quoted(max_checkpoints);
      return std::nullopt;
    }
    parsed.max_checkpoints = max_checkpoints.get<std::int64_t>();
  }

  // --- host folders (docs/mounts.md) ----------------------------------------------------------
  const auto& mounts = option_value(options, option_names::kMount);
  if (!mounts.is_null()) {
    std::string why;
    auto list = parse_mount_list(mounts, why);
    if (!list) {
      error = std::string("--mount: ").append(why);
      return std::nullopt;
    }
    parsed.mounts = std::move(*list);
  }
  const auto& owner = option_value(options, option_names::kMountOwner);
  if (!owner.is_null()) {
    auto given = owner.is_string() ? parse_mount_owner(owner.get<std::string>()) : std::nullopt;
    if (!given) {
      error = std::string("--mount-owner must be UID:GID in numbers, e.g. 1000:1000; got ")
                  .append(quoted(owner));
      return std::nullopt;
    }
    parsed.mount_owner = *given;
  }
  return parsed;
}

}  // namespace vc::container
