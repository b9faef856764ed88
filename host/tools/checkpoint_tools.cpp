// checkpoint_tools.cpp — the checkpoint_* tools.
#include "tools/checkpoint_tools.h"

#include <optional>
#include <string>
#include <utility>

#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "computers/lifecycle_reports.h"
#include "tools/confirmation.h"
#include "tools/tool_call_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

using computers::CheckpointOutcome;
using computers::ComputerLifecycle;

constexpr const char* kNameRule =
    "Names are 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit (for "
    "example \"before-upgrade\").";

constexpr const char* kCreateDescription =
    "Save the computer's files as a named checkpoint, so that checkpoint_restore can bring them "
    "back. Take one before a risky change: an upgrade, a large refactor, deleting files, "
    "changing system configuration. Only files are saved, not running programs or memory. A "
    "name in use must be deleted (checkpoint_delete) before it is used again. Names are 1-63 "
    "letters, digits, '.', '_' or '-', starting with a letter or digit (for example "
    "\"before-upgrade\").";
constexpr const char* kListDescription =
    "List the computer's checkpoints, oldest first, with when each was taken and its size.";
constexpr const char* kRestoreDescription =
    "Bring the computer's files back to a checkpoint taken with checkpoint_create, undoing "
    "every file change made since; files written after it are lost. Only files come back: "
    "running programs and shells are ended, not restored, so start servers again afterwards. "
    "The computer keeps its name, network and desktop settings, and the checkpoint is kept, so "
    "it can be restored again.";
constexpr const char* kDeleteDescription =
    "Delete a checkpoint that is no longer needed. The computer's files are not touched. A "
    "computer can hold only so many checkpoints: delete old ones to make room.";

Json checkpoint_name_property(const char* description) {
  return Json{{"description", description},
              {"maxLength", 63},
              {"minLength", 1},
              {"title", "Name"},
              {"type", "string"}};
}

Json checkpoint_fields_schema() {
  return Json{{"type", "object"},
              {"description",
               "name, computer_id, created (RFC 3339, UTC), size_bytes, processes (false: "
               "files only), desktop_environment (when known)."}};
}

Json with_error(Json properties) {
  properties["error"] = typed("string", "Present only when the call failed; says why.");
  return Json{{"type", "object"}, {"properties", std::move(properties)}};
}

Json checkpoint_outcome_schema(const char* checkpoint_description) {
  Json checkpoint = checkpoint_fields_schema();
  checkpoint["description"] =
      std::string(checkpoint_description) + " " + checkpoint["description"].get<std::string>();
  return with_error(Json{{"ok", typed("boolean", "True: the operation succeeded.")},
                         {"computer_id", typed("string", "The computer's name.")},
                         {"sandbox_id", typed("string", "The engine's id for it.")},
                         {"temporary", typed("boolean", "Always false here.")},
                         {"checkpoint", std::move(checkpoint)}});
}

// What the four tools share: the target computer and the name, read and checked the same way.
class CheckpointTool : public mcp::Tool {
 public:
  CheckpointTool(const CatalogContext& context, const char* name, const char* description,
                 Json properties, std::vector<std::string> required, Json output, Json hints)
      : lifecycle_(*context.lifecycle),
        server_computer_id_(context.registry->settings().computer_id),
        named_computers_(context.lifecycle_tools),
        definition_(tool_definition(
            name, description,
            object_schema(name, with_computer_id(std::move(properties), context.lifecycle_tools),
                          std::move(required)),
            std::move(output), std::move(hints))) {}

  const mcp::ToolDefinition& definition() const override { return definition_; }

 protected:
  // The computer_id argument (only with --lifecycle-tools); nullopt: the server's computer.
  std::optional<std::string> target(const mcp::ToolCall& call) const {
    const Json& arguments = call.arguments();
    if (!named_computers_ || !arguments.contains("computer_id")) return std::nullopt;
    return arguments.at("computer_id").get<std::string>();
  }

  // The id the payloads name.
  std::string computer_id_of(const std::optional<std::string>& target) const {
    return target.value_or(server_computer_id_);
  }

  // The name argument, or nullopt after finishing the call with why it cannot be used.
  static std::optional<std::string> checked_name(const std::shared_ptr<mcp::ToolCall>& call) {
    const Json& arguments = call->arguments();
    if (!arguments.contains("name") || !arguments.at("name").is_string()) {
      call->finish(error_payload(std::string("A checkpoint name is required. ") + kNameRule));
      return std::nullopt;
    }
    std::string name = arguments.at("name").get<std::string>();
    if (auto problem = computers::checkpoint_name_problem(name)) {
      call->finish(error_payload(*problem));
      return std::nullopt;
    }
    return name;
  }

  static std::function<void(Expected<CheckpointOutcome>)> finish_with_report(
      const std::shared_ptr<mcp::ToolCall>& call) {
    return [call](Expected<CheckpointOutcome> outcome) {
      if (!outcome) return call->finish(error_payload(outcome.error().message));
      call->finish(
          mcp::ToolResult::from_payload(computers::checkpoint_report(outcome.value()), false));
    };
  }

  static computers::ProgressFn progress_of(const std::shared_ptr<mcp::ToolCall>& call) {
    return [call](double progress, std::optional<double> total, const std::string& message) {
      call->report_progress(progress, total, message);
    };
  }

  ComputerLifecycle& lifecycle_;
  std::string server_computer_id_;
  bool named_computers_;
  mcp::ToolDefinition definition_;

 private:
  static Json with_computer_id(Json properties, bool named_computers) {
    if (named_computers) {
      properties["computer_id"] =
          computer_id_property("Name of the computer; this server's computer when omitted.");
    }
    return properties;
  }
};

class CheckpointCreateTool final : public CheckpointTool {
 public:
  explicit CheckpointCreateTool(const CatalogContext& context)
      : CheckpointTool(context, "checkpoint_create", kCreateDescription,
                       Json{{"name", checkpoint_name_property(
                                         "Name of the new checkpoint, e.g. \"before-upgrade\".")}},
                       {"name"}, checkpoint_outcome_schema("The checkpoint taken:"),
                       tool_annotations(false, false, false)) {}

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    const auto name = checked_name(call);
    if (!name) return;
    cancel_with(call, lifecycle_.create_checkpoint(target(*call), *name, progress_of(call),
                                                   finish_with_report(call)));
  }
};

class CheckpointListTool final : public CheckpointTool {
 public:
  explicit CheckpointListTool(const CatalogContext& context)
      : CheckpointTool(
            context, "checkpoint_list", kListDescription, Json::object(), {},
            with_error(Json{{"computer_id", typed("string", "The computer's name.")},
                            {"checkpoints", typed("array", "Its checkpoints, oldest first.")},
                            {"count", typed("integer", "How many checkpoints it has.")}}),
            read_only_annotations()) {}

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    cancel_with(call, lifecycle_.list_checkpoints(
                          target(*call), [call](Expected<computers::CheckpointListing> listed) {
                            if (!listed) return call->finish(error_payload(listed.error().message));
                            call->finish(mcp::ToolResult::from_payload(
                                computers::checkpoint_listing_report(listed.value()), false));
                          }));
  }
};

class CheckpointRestoreTool final : public CheckpointTool {
 public:
  explicit CheckpointRestoreTool(const CatalogContext& context)
      : CheckpointTool(context, "checkpoint_restore", kRestoreDescription,
                       Json{{"name", checkpoint_name_property("Name of the checkpoint to restore.")}},
                       {"name"}, checkpoint_outcome_schema("The checkpoint restored:"),
                       tool_annotations(false, true, true)) {
    // Seconds at best; minutes for a large computer.
    definition_.task_support = mcp::TaskSupport::optional;
  }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    const auto name = checked_name(call);
    if (!name) return;
    const auto computer = target(*call);
    const std::string computer_id = computer_id_of(computer);
    confirm_then(call,
                 "Restore computer " + computer_id + " to checkpoint '" + *name +
                     "'? Files changed since it was taken are lost, and running programs end.",
                 computer_id, [this, call, computer, computer_id, name = *name] {
                   // Asked first (a task's questions would wait for tasks/update), then long.
                   call->become_task("Restoring computer " + computer_id + " to checkpoint " +
                                     name);
                   cancel_with(call, lifecycle_.restore_checkpoint(computer, name, progress_of(call),
                                                                   finish_with_report(call)));
                 });
  }
};

class CheckpointDeleteTool final : public CheckpointTool {
 public:
  explicit CheckpointDeleteTool(const CatalogContext& context)
      : CheckpointTool(
            context, "checkpoint_delete", kDeleteDescription,
            Json{{"name", checkpoint_name_property("Name of the checkpoint to delete.")}},
            {"name"},
            with_error(Json{{"ok", typed("boolean", "True: the checkpoint was deleted.")},
                            {"computer_id", typed("string", "The computer's name.")},
                            {"name", typed("string", "The checkpoint deleted.")},
                            {"deleted", typed("boolean", "Always true on success.")}}),
            tool_annotations(false, true, false)) {}

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    const auto name = checked_name(call);
    if (!name) return;
    const auto computer = target(*call);
    cancel_with(call, lifecycle_.delete_checkpoint(
                          computer, *name,
                          [call, computer_id = computer_id_of(computer), name = *name](
                              Expected<bool> deleted) {
                            if (!deleted) return call->finish(error_payload(deleted.error().message));
                            call->finish(mcp::ToolResult::from_payload(
                                computers::checkpoint_deleted_report(computer_id, name), false));
                          }));
  }
};

}  // namespace

std::vector<std::unique_ptr<mcp::Tool>> make_checkpoint_tools(const CatalogContext& context) {
  std::vector<std::unique_ptr<mcp::Tool>> tools;
  if (!context.lifecycle->offers_checkpoints()) return tools;
  tools.push_back(std::make_unique<CheckpointCreateTool>(context));
  tools.push_back(std::make_unique<CheckpointListTool>(context));
  tools.push_back(std::make_unique<CheckpointRestoreTool>(context));
  tools.push_back(std::make_unique<CheckpointDeleteTool>(context));
  return tools;
}

}  // namespace vc::tools
