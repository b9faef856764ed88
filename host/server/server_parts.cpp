// server_parts.cpp — see server_parts.h.
#include "server/server_parts.h"

#include <fstream>

#include <spdlog/spdlog.h>

#include "cli/state_directory.h"
#include "computers/tool_instructions.h"
#include "tools/app_bundle.h"
#include "tools/app_resource.h"
#include "tools/app_view_link.h"
#include "tools/desktop_resources.h"
#include "tools/desktop_tools.h"
#include "tools/read_activity_tool.h"
#include "tools/tool_description.h"

namespace vc::server {

Expected<std::shared_ptr<backend_proxy::Backend>> start_backend(
    uv_loop_t* loop, const cli::ServerConfig& config,
    std::shared_ptr<plugins::PluginModule> module) {
  const auto state_dir = cli::plugin_state_dir(config.state_dir, module->info().id);
  return backend_proxy::Backend::create(loop, std::move(module), config.backend_options, state_dir);
}

Expected<std::string> build_tool_description(uv_loop_t* loop,
                                             const computers::ComputerRegistry& registry,
                                             const cli::ServerConfig& config) {
  auto instructions = computers::fetch_tool_instructions(loop, registry);
  if (!instructions) {
    spdlog::warn("the backend gave no tool instructions: {}", instructions.error().message);
  }
  return tools::assemble_tool_description(config.tool_instruction_override,
                                          config.extended_tool_instruction,
                                          instructions ? instructions.value() : std::nullopt);
}

namespace {

computers::ComputerSettings registry_settings(const cli::ServerConfig& config) {
  computers::ComputerSettings settings;
  settings.computer_id = config.computer_id;
  settings.network_access = config.network_access;
  settings.desktop_environment = config.desktop_environment;
  settings.shell = config.shell;
  settings.workspace_directory = config.workspace_directory;
  settings.default_timeout_s = config.default_timeout_s;
  settings.output_limit = config.output_limit;
  return settings;
}

}  // namespace

std::unique_ptr<computers::ComputerRegistry> make_registry(
    std::shared_ptr<backend_proxy::Backend> backend, const cli::ServerConfig& config) {
  return std::make_unique<computers::ComputerRegistry>(std::move(backend),
                                                       registry_settings(config));
}

std::unique_ptr<computers::ComputerLifecycle> make_lifecycle(
    std::shared_ptr<backend_proxy::Backend> backend, const cli::ServerConfig& config,
    computers::ComputerRegistry* registry) {
  return std::make_unique<computers::ComputerLifecycle>(std::move(backend),
                                                        registry_settings(config), registry);
}

Expected<std::shared_ptr<const mcp::RequestStateSeal>> make_request_state_seal(
    const cli::ServerConfig& config) {
  if (!config.request_state_key_file) return std::make_shared<const mcp::RequestStateSeal>();
  const std::string path = config.request_state_key_file->string();
  std::ifstream file(*config.request_state_key_file, std::ios::binary);
  std::string key;
  if (file) {
    key.resize(4097);
    file.read(key.data(), static_cast<std::streamsize>(key.size()));
    key.resize(static_cast<std::size_t>(file.gcount()));
  }
  if (!file && !file.eof()) {
    return Failure{VC_E_INVALID_ARGUMENT,
                   "Cannot read the request-state key file " + path +
                       ". Give --request-state-key-file a readable file with a secret, e.g. "
                       "made with: head -c 32 /dev/urandom > " + path};
  }
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
  if (key.size() < 16 || key.size() > 4096) {
    return Failure{VC_E_INVALID_ARGUMENT,
                   "The request-state key file " + path + " holds " + std::to_string(key.size()) +
                       " bytes; it needs 16 to 4096 (e.g. head -c 32 /dev/urandom > " + path +
                       ")"};
  }
  return std::make_shared<const mcp::RequestStateSeal>(std::move(key));
}

mcp::SessionOptions session_options(const mcp::ContentCatalog* catalog,
                                    mcp::CatalogChanges* changes, mcp::ActivityFeed* activity) {
  mcp::SessionOptions options;
  options.server_version = VC_HOST_VERSION;
  options.catalog = catalog;
  options.changes = changes;
  options.extensions = Json{{"io.modelcontextprotocol/ui", Json::object()}};
  if (activity != nullptr) {
    options.on_tool_request = [activity](const std::string& tool, const Json& arguments) {
      activity->record_request(tool, arguments);
    };
    options.on_tool_result = [activity](const std::string& tool, const Json& arguments,
                                        const Json& result) {
      activity->record_result(tool, arguments, result);
    };
  }
  return options;
}

std::filesystem::path app_file_of(const cli::ServerConfig& config) {
  return config.app_file.empty() ? tools::default_app_file() : config.app_file;
}

void add_app_parts(const cli::ServerConfig& config, mcp::ActivityFeed& activity,
                   std::vector<std::unique_ptr<mcp::Tool>>& tools,
                   std::unique_ptr<mcp::ContentCatalog>& catalog) {
  for (auto& tool : tools) tool = tools::link_to_app(std::move(tool));
  tools.push_back(tools::make_read_activity_tool(activity));
  catalog = tools::make_app_resource_catalog(app_file_of(config), std::move(catalog));
}

std::unique_ptr<tools::DesktopToolSet> add_desktop_parts(
    const cli::ServerConfig& config, computers::ComputerRegistry& registry,
    std::vector<std::unique_ptr<mcp::Tool>>& tools, std::unique_ptr<mcp::ContentCatalog>& catalog) {
  auto tool_set = std::make_unique<tools::DesktopToolSet>(config.desktop_environment);
  for (auto& tool : tools::make_desktop_tools({&registry, tool_set.get()})) {
    tools.push_back(std::move(tool));
  }
  catalog = tools::make_desktop_resource_catalog(registry, *tool_set, std::move(catalog));
  registry.set_computer_observer(
      [set = tool_set.get()](const computers::ComputerInfo& computer) { set->observe(computer); });
  return tool_set;
}

std::unique_ptr<mcp::ContentCatalog> add_extension_parts(
    uv_loop_t* loop, const ServerExtension* extension,
    std::vector<std::unique_ptr<mcp::Tool>>& tools) {
  if (extension == nullptr) return nullptr;
  if (!extension->notice.empty()) spdlog::warn("{}", extension->notice);
  if (!extension->add_parts) return nullptr;
  return extension->add_parts(loop, tools);
}

std::vector<mcp::Tool*> borrowed(const std::vector<std::unique_ptr<mcp::Tool>>& tools) {
  std::vector<mcp::Tool*> pointers;
  for (const auto& tool : tools) pointers.push_back(tool.get());
  return pointers;
}

void close_loop(uv_loop_t* loop) {
  if (uv_loop_close(loop) == 0) return;
  uv_walk(
      loop,
      [](uv_handle_t* handle, void*) {
        spdlog::warn("closing a {} handle left open at exit", uv_handle_type_name(handle->type));
        if (!uv_is_closing(handle)) uv_close(handle, nullptr);
      },
      nullptr);
  uv_run(loop, UV_RUN_DEFAULT);
  if (uv_loop_close(loop) != 0) spdlog::warn("the event loop could not be closed cleanly");
}

int run_on_own_loop(const std::function<int(uv_loop_t* loop)>& body) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  const int exit_code = body(&loop);
  uv_run(&loop, UV_RUN_DEFAULT);  // close callbacks of the parts just destroyed
  close_loop(&loop);
  return exit_code;
}

}  // namespace vc::server
