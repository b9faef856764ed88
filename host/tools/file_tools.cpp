// file_tools.cpp — see file_tools.h.
#include "tools/file_tools.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "common/sha256.h"
#include "tools/file_path.h"
#include "tools/file_replay.h"
#include "tools/file_script_results.h"
#include "tools/file_scripts.h"
#include "tools/tool_call_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

using Settings = std::shared_ptr<const FileToolSettings>;
using computers::ComputerInfo;
using computers::ExecResult;

// --- results -------------------------------------------------------------------------------

mcp::ToolResult error_result(const std::string& operation, const std::string& message) {
  return mcp::ToolResult::from_payload(Json{{"error", message}, {"operation", operation}},
                                       /*is_error=*/true);
}

// The keys every successful file tool payload starts with, from the live computer.
Json base_payload(const std::string& operation, const FileToolSettings& settings,
                  const ComputerInfo& computer) {
  return Json{{"operation", operation},
              {"computer_id", computer.computer_id.empty() ? settings.computer.computer_id
                                                           : computer.computer_id},
              {"desktop_environment", computer.desktop_environment},
              {"network_access", computer.network_access},
              {"desktop_url", computer.desktop_url ? Json(*computer.desktop_url) : Json()},
              {"workspace_directory", settings.computer.workspace_directory}};
}

// base_payload, then the file's text and what identifies it: the payload of read, write and
// edit before their own keys (Json keeps insertion order, so the key order is part of it).
Json text_payload(const std::string& operation, const FileToolSettings& settings,
                  const ComputerInfo& computer, const std::string& path,
                  const std::string& content) {
  Json payload = base_payload(operation, settings, computer);
  payload["path"] = path;
  payload["content"] = content;
  payload["size_bytes"] = content.size();
  payload["sha256"] = sha256_hex(content);
  return payload;
}

// The refusal of a text over the text tool limit, or nullopt when `size` is within it.
std::optional<std::string> text_limit_error(size_t size, const FileToolSettings& settings) {
  if (size <= settings.text_limit) return std::nullopt;
  return "content is " + std::to_string(size) + " bytes; text tool limit is " +
         std::to_string(settings.text_limit) + " bytes";
}

// --- running a script ----------------------------------------------------------------------

using ScriptDone = std::function<void(Expected<ExecResult>)>;

CancelHandle run_script(computers::ComputerRegistry& registry, const FileToolSettings& settings,
                        const char* script, const std::string& tool,
                        std::vector<std::string> arguments, std::string stdin_data,
                        uint64_t output_limit, ScriptDone done) {
  computers::ExecRequest request;
  request.args = {"/bin/sh", "-c", script, tool};
  for (auto& argument : arguments) request.args.push_back(std::move(argument));
  request.stdin_data = std::move(stdin_data);
  request.timeout_s = settings.computer.default_timeout_s;
  request.output_limit = output_limit;
  return registry.execute(std::move(request), nullptr, std::move(done));
}

// --- reading -------------------------------------------------------------------------------

uint64_t read_output_limit(const FileToolSettings& settings) {
  return std::max<uint64_t>(settings.computer.output_limit, settings.text_limit * 14 / 10 + 1024);
}

CancelHandle read_text(computers::ComputerRegistry& registry, const Settings& settings,
                       const std::string& tool, const std::string& path,
                       std::function<void(Expected<FileText>)> done) {
  return run_script(registry, *settings, kReadFileScript, tool,
                    {path, std::to_string(settings->text_limit)}, "",
                    read_output_limit(*settings),
                    [settings, path, done = std::move(done)](Expected<ExecResult> ran) {
                      done(decode_read_script(ran, path, *settings));
                    });
}

// --- writing -------------------------------------------------------------------------------

struct WriteRequest {
  std::string path;
  std::string content;
  bool create_parents = true;
  std::string expected_sha256;  // "" = no check
};

CancelHandle write_text(computers::ComputerRegistry& registry, const Settings& settings,
                        const std::string& tool, WriteRequest write,
                        std::function<void(Expected<ComputerInfo>)> done) {
  std::vector<std::string> arguments = {write.path, write.create_parents ? "1" : "0",
                                        write.expected_sha256};
  std::string content = write.content;
  return run_script(registry, *settings, kWriteFileScript, tool, std::move(arguments),
                    std::move(content), settings->computer.output_limit,
                    [settings, write = std::move(write), done = std::move(done)](
                        Expected<ExecResult> ran) { done(decode_write_script(ran, write.path, *settings)); });
}

// --- the tools -----------------------------------------------------------------------------

// The `path` input of read, write and edit.
Json file_path_property() {
  return string_property("Path", "UTF-8 text file path, absolute or relative to /workspace.");
}

Json file_output_schema(Json extra) {
  Json properties{
      {"operation", typed("string", "The tool's name.")},
      {"computer_id", typed("string", "The computer the file is on.")},
      {"desktop_environment", typed("boolean", "Whether the computer's Xfce desktop is running.")},
      {"network_access", typed("boolean", "Whether the computer can reach the network.")},
      {"desktop_url", typed(Json::array({"string", "null"}), "URL of the live desktop, or null.")},
      {"workspace_directory", typed("string", "The directory relative paths start from.")},
      {"path", typed("string", "The absolute, normalised path.")},
      {"content", typed("string", "The file's text.")},
      {"size_bytes", typed("integer", "The file's size in bytes (UTF-8).")},
      {"sha256", typed("string", "SHA-256 of the file's bytes, hex.")},
      {"visualization_warning", typed(Json::array({"string", "null"}), "Desktop animation problems; null without one.")},
      {"error", typed("string", "Present only when the operation failed; says why.")}};
  for (auto& [key, value] : extra.items()) properties[key] = value;
  return Json{{"type", "object"}, {"properties", std::move(properties)}};
}

// Ends a successful file call once the desktop (when live) has shown the change; a replay that
// failed is the payload's visualization_warning.
void finish_with_replay(computers::ComputerRegistry& registry,
                        const std::shared_ptr<mcp::ToolCall>& call, const ComputerInfo& computer,
                        FileChange change, Json payload) {
  replay_file_change(registry, computer, std::move(change),
                     [call, payload = std::move(payload)](Json warning) mutable {
                       payload["visualization_warning"] = std::move(warning);
                       call->finish(mcp::ToolResult::from_payload(payload, false));
                     });
}

class FileTool : public mcp::Tool {
 public:
  FileTool(Settings settings, computers::ComputerRegistry& registry, mcp::ToolDefinition definition)
      : settings_(std::move(settings)), registry_(registry), definition_(std::move(definition)) {}
  const mcp::ToolDefinition& definition() const override { return definition_; }

 protected:
  const std::string& name() const { return definition_.name; }
  // The resolved path of argument `key`, or nullopt after finishing `call` with the error.
  std::optional<std::string> path_of(const std::shared_ptr<mcp::ToolCall>& call,
                                     const std::string& fallback = "") const {
    const std::string path = call->arguments().value("path", fallback);
    auto resolved = resolve_file_path(path, settings_->computer.workspace_directory);
    if (!resolved) {
      call->finish(error_result(name(), resolved.error().message));
      return std::nullopt;
    }
    return resolved.value();
  }

  Settings settings_;
  computers::ComputerRegistry& registry_;
  mcp::ToolDefinition definition_;
};

class ReadFileTool final : public FileTool {
 public:
  ReadFileTool(Settings settings, computers::ComputerRegistry& registry)
      : FileTool(std::move(settings), registry,
                 tool_definition("read_file", "Read a UTF-8 text file from the computer.",
                            object_schema("read_file",
                                          Json{{"path", file_path_property()}},
                                          {"path"}),
                            file_output_schema(Json::object()),
                            read_only_annotations())) {}

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    auto path = path_of(call);
    if (!path) return;
    auto registry = &registry_;
    auto running = read_text(registry_, settings_, name(), *path,
                             [settings = settings_, registry, call, path = *path](Expected<FileText> text) {
                               if (!text) return call->finish(error_result("read_file", text.error().message));
                               Json payload = text_payload("read_file", *settings, text.value().computer,
                                                           path, text.value().bytes);
                               finish_with_replay(*registry, call, text.value().computer,
                                                  FileChange{"read", path, ""}, std::move(payload));
                             });
    cancel_with(call, running);
  }
};

class WriteFileTool final : public FileTool {
 public:
  WriteFileTool(Settings settings, computers::ComputerRegistry& registry)
      : FileTool(std::move(settings), registry,
                 tool_definition("write_file", "Create or replace a UTF-8 text file on the computer (atomically).",
                            object_schema("write_file",
                                          Json{{"path", file_path_property()},
                                               {"content", string_property("Content", "Complete UTF-8 text to save.")},
                                               {"create_parent_directories", bool_property("Create Parent Directories", "Create missing parent folders before saving.", true)}},
                                          {"path", "content"}),
                            file_output_schema(Json{{"created_parent_directories", typed("boolean", "The flag the call gave.")}}),
                            Json{{"readOnlyHint", false}, {"destructiveHint", true},
                                 {"idempotentHint", true}, {"openWorldHint", false}})) {}

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    auto path = path_of(call);
    if (!path) return;
    const std::string content = call->arguments().value("content", "");
    if (auto too_long = text_limit_error(content.size(), *settings_)) {
      return call->finish(error_result(name(), *too_long));
    }
    const bool parents = call->arguments().value("create_parent_directories", true);
    auto registry = &registry_;
    auto running = write_text(
        registry_, settings_, name(), WriteRequest{*path, content, parents, ""},
        [settings = settings_, registry, call, path = *path, content,
         parents](Expected<ComputerInfo> written) {
          if (!written) return call->finish(error_result("write_file", written.error().message));
          Json payload = text_payload("write_file", *settings, written.value(), path, content);
          payload["created_parent_directories"] = parents;
          finish_with_replay(*registry, call, written.value(), FileChange{"write", path, ""},
                             std::move(payload));
        });
    cancel_with(call, running);
  }
};

// Non-overlapping occurrences, as Python's str.count.
size_t count_occurrences(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

std::string replace(const std::string& text, const std::string& from, const std::string& to,
                    bool all) {
  std::string out;
  size_t start = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, start)) {
    out.append(text, start, at - start);
    out += to;
    start = at + from.size();
    if (!all) break;
  }
  out.append(text, start, std::string::npos);
  return out;
}

class EditFileTool final : public FileTool {
 public:
  EditFileTool(Settings settings, computers::ComputerRegistry& registry)
      : FileTool(std::move(settings), registry,
                 tool_definition("edit_file", "Replace text in a UTF-8 text file on the computer.",
                            object_schema("edit_file",
                                          Json{{"path", file_path_property()},
                                               {"old_text", string_property("Old Text", "Exact text to replace.")},
                                               {"new_text", string_property("New Text", "Replacement text.")},
                                               {"replace_all", bool_property("Replace All", "Replace every occurrence instead of exactly one.", false)}},
                                          {"path", "old_text", "new_text"}),
                            file_output_schema(Json{{"old_text", typed("string", "The text replaced.")},
                                                    {"new_text", typed("string", "The replacement.")},
                                                    {"replacements", typed("integer", "How many occurrences were replaced.")}}),
                            Json{{"readOnlyHint", false}, {"destructiveHint", true},
                                 {"idempotentHint", false}, {"openWorldHint", false}})) {}

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    auto path = path_of(call);
    if (!path) return;
    const std::string old_text = call->arguments().value("old_text", "");
    const std::string new_text = call->arguments().value("new_text", "");
    const bool all = call->arguments().value("replace_all", false);
    if (old_text.empty()) return call->finish(error_result(name(), "old_text must not be empty"));

    auto registry = &registry_;
    auto running = read_text(
        registry_, settings_, name(), *path,
        [settings = settings_, registry, call, path = *path, old_text, new_text, all](Expected<FileText> text) {
          if (!text) return call->finish(error_result("edit_file", text.error().message));
          const std::string& original = text.value().bytes;
          const size_t found = count_occurrences(original, old_text);
          if (found == 0) {
            return call->finish(error_result("edit_file", "old_text was not found in " + path));
          }
          if (found > 1 && !all) {
            return call->finish(error_result(
                "edit_file", "old_text occurs " + std::to_string(found) + " times in " + path +
                                 "; provide more surrounding text or set replace_all=true"));
          }
          std::string updated = replace(original, old_text, new_text, all);
          if (auto too_long = text_limit_error(updated.size(), *settings)) {
            return call->finish(error_result("edit_file", *too_long));
          }
          const size_t replacements = all ? found : 1;
          auto saving = write_text(
              *registry, settings, "edit_file",
              WriteRequest{path, updated, false, sha256_hex(original)},
              [settings, registry, call, path, updated, old_text, new_text,
               replacements](Expected<ComputerInfo> written) {
                if (!written) return call->finish(error_result("edit_file", written.error().message));
                Json payload = text_payload("edit_file", *settings, written.value(), path, updated);
                payload["old_text"] = old_text;
                payload["new_text"] = new_text;
                payload["replacements"] = replacements;
                finish_with_replay(*registry, call, written.value(),
                                   FileChange{"edit", path, new_text}, std::move(payload));
              });
          cancel_with(call, saving);
        });
    cancel_with(call, running);
  }
};

class ListDirectoryTool final : public FileTool {
 public:
  ListDirectoryTool(Settings settings, computers::ComputerRegistry& registry)
      : FileTool(std::move(settings), registry,
                 tool_definition("list_directory", "List a directory on the computer: directories first, then files, by name.",
                            object_schema("list_directory",
                                          Json{{"path", Json{{"default", "."},
                                                             {"description", "Directory path, absolute or relative to /workspace."},
                                                             {"title", "Path"},
                                                             {"type", "string"}}}},
                                          {}),
                            Json{{"type", "object"},
                                 {"properties",
                                  {{"computer_id", typed("string", "The computer listed.")},
                                   {"workspace_directory", typed("string", "The directory relative paths start from.")},
                                   {"path", typed("string", "The absolute, normalised directory.")},
                                   {"entries", typed("array", "name, path, kind (directory, file, other) and size_bytes of each entry.")},
                                   {"error", typed("string", "Present only when the listing failed; says why.")}}}},
                            read_only_annotations())) {
    definition_.meta = app_only_meta();  // as the original: for the dashboard
  }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    auto path = path_of(call, ".");
    if (!path) return;
    auto running = run_script(
        registry_, *settings_, kListDirectoryScript, name(), {*path}, "",
        std::max<uint64_t>(settings_->computer.output_limit, 16 * 1024 * 1024),
        [settings = settings_, call, path = *path](Expected<ExecResult> ran) {
          auto entries = decode_list_script(ran, path, *settings);
          if (!entries) return call->finish(error_result("list_directory", entries.error().message));
          const std::string computer_id = ran.value().computer.computer_id.empty()
                                              ? settings->computer.computer_id
                                              : ran.value().computer.computer_id;
          call->finish(mcp::ToolResult::from_payload(
              Json{{"computer_id", computer_id},
                   {"workspace_directory", settings->computer.workspace_directory},
                   {"path", path},
                   {"entries", std::move(entries).value()}},
              false));
        });
    cancel_with(call, running);
  }
};

}  // namespace

std::vector<std::unique_ptr<mcp::Tool>> make_file_tools(FileToolSettings settings,
                                                        computers::ComputerRegistry& registry) {
  auto shared = std::make_shared<const FileToolSettings>(std::move(settings));
  std::vector<std::unique_ptr<mcp::Tool>> tools;
  tools.push_back(std::make_unique<ListDirectoryTool>(shared, registry));
  tools.push_back(std::make_unique<ReadFileTool>(shared, registry));
  tools.push_back(std::make_unique<WriteFileTool>(shared, registry));
  tools.push_back(std::make_unique<EditFileTool>(shared, registry));
  return tools;
}

std::vector<std::unique_ptr<mcp::Tool>> make_file_tools(const CatalogContext& context) {
  FileToolSettings settings;
  settings.computer = context.registry->settings();
  return make_file_tools(std::move(settings), *context.registry);
}

}  // namespace vc::tools
