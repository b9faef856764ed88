// lifecycle_tools.cpp — the computer_* management tools.
#include "tools/lifecycle_tools.h"

#include <cstdio>
#include <random>
#include <string>
#include <utility>

#include "computers/computer_lifecycle.h"
#include "computers/lifecycle_reports.h"
#include "tools/confirmation.h"
#include "tools/mount_request.h"
#include "tools/tool_call_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

using computers::ComputerInfo;
using computers::ComputerLifecycle;

Json outcome_schema(Json properties) {
  properties["error"] = typed("string", "Present only when the call failed; says why.");
  return Json{{"type", "object"}, {"properties", std::move(properties)}};
}

Json computer_outcome_schema() {
  return outcome_schema(Json{{"ok", typed("boolean", "True: the operation succeeded.")},
                             {"computer_id", typed("string", "The computer's name.")},
                             {"sandbox_id", typed("string", "The engine's id for it.")},
                             {"temporary", typed("boolean", "Always false here.")}});
}

// computer_create's outcome: the computer outcome, and the mounts when it has some.
Json created_outcome_schema() {
  Json schema = computer_outcome_schema();
  schema["properties"]["mounts"] =
      typed("array", "Host folders mounted into it ({host_path, computer_path, read_only}).");
  return schema;
}

// A fresh name for a computer created without one: computer-<8 hex digits>.
std::string generated_computer_id() {
  std::random_device entropy;
  char name[32];
  std::snprintf(name, sizeof name, "computer-%08x", static_cast<unsigned>(entropy()));
  return name;
}

class LifecycleTool : public mcp::Tool {
 public:
  LifecycleTool(ComputerLifecycle& lifecycle, const char* name, const char* description,
                Json input, Json output, Json hints)
      : lifecycle_(lifecycle),
        definition_(tool_definition(name, description, std::move(input), std::move(output),
                                    std::move(hints))) {}

  const mcp::ToolDefinition& definition() const override { return definition_; }

 protected:
  // computer_restart and computer_factory_reset: one id in, the computer outcome out.
  static Json id_schema(const std::string& tool, const char* description) {
    return object_schema(tool, Json{{"computer_id", computer_id_property(description)}},
                         {"computer_id"});
  }

  ComputerLifecycle& lifecycle_;
  mcp::ToolDefinition definition_;
};

class ComputerListTool final : public LifecycleTool {
 public:
  explicit ComputerListTool(ComputerLifecycle& lifecycle)
      : LifecycleTool(lifecycle, "computer_list",
                      "List every computer this server's backend manages, with its state.",
                      object_schema("computer_list", Json::object(), {}),
                      outcome_schema(Json{
                          {"computers", typed("array", "One entry per computer, by id.")},
                          {"count", typed("integer", "How many computers there are.")}}),
                      read_only_annotations()) {}

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    auto running = lifecycle_.list(
        [call, backend = lifecycle_.backend_name()](
            Expected<std::vector<ComputerInfo>> listed) {
          if (!listed) return call->finish(error_payload(listed.error().message));
          call->finish(mcp::ToolResult::from_payload(
              computers::computer_listing_report(listed.value(), backend), false));
        });
    cancel_with(call, running);
  }
};

class ComputerCreateTool final : public LifecycleTool {
 public:
  ComputerCreateTool(ComputerLifecycle& lifecycle, bool network_access, std::string mount_root)
      : LifecycleTool(
            lifecycle, "computer_create",
            "Create and start a new persistent computer. Fails if the id is taken.",
            object_schema(
                "computer_create",
                Json{{"computer_id",
                      computer_id_property("Name of the new computer; generated when omitted.")},
                     {"temporary",
                      bool_property("Temporary",
                                    "Must be false: computers made here are persistent.", false)},
                     {"network_access",
                      bool_property("Network Access", "Whether the computer may use the network.",
                                    network_access)},
                     {"mounts", mounts_property(mount_root)}},
                {}),
            created_outcome_schema(), tool_annotations(false, false, false)),
        network_access_(network_access),
        mount_root_(std::move(mount_root)) {
    definition_.task_support = mcp::TaskSupport::optional;
  }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    const Json& arguments = call->arguments();
    if (arguments.value("temporary", false)) {
      return call->finish(error_payload("Temporary computers are disabled."));
    }
    computers::CreateSpec spec;
    spec.computer_id = arguments.contains("computer_id")
                           ? arguments.at("computer_id").get<std::string>()
                           : generated_computer_id();
    spec.network_access = arguments.value("network_access", network_access_);
    if (arguments.contains("mounts")) {
      auto mounts = mounts_under_root(arguments.at("mounts"), mount_root_);
      if (!mounts) return call->finish(error_payload(mounts.error().message));
      spec.mounts = std::move(mounts.value());
    }
    const bool asked_for_mounts = !spec.mounts.empty();
    // Seconds at best, minutes when the image must be built first.
    call->become_task("Creating computer " + spec.computer_id);
    auto running = lifecycle_.create(
        spec,
        [call](double progress, std::optional<double> total, const std::string& message) {
          call->report_progress(progress, total, message);
        },
        [call, asked_for_mounts](Expected<ComputerInfo> created) {
          if (!created) return call->finish(error_payload(created.error().message));
          if (asked_for_mounts && created.value().mounts.empty()) {
            return call->finish(error_payload(
                "Computer '" + created.value().computer_id +
                "' was created, but its backend does not mount host folders: none of the "
                "mounts were made."));
          }
          Json report = computers::computer_changed_report(created.value());
          if (!created.value().mounts.empty()) report["mounts"] = created.value().mounts_json();
          call->finish(mcp::ToolResult::from_payload(std::move(report), false));
        });
    cancel_with(call, running);
  }

 private:
  // The "mounts" argument's schema; its description says where the folders may come from.
  static Json mounts_property(const std::string& mount_root) {
    const std::string where =
        mount_root.empty() ? std::string("This server allows no mounts (no --mount-root).")
                           : "Only folders inside " + mount_root + " may be mounted.";
    return Json{
        {"type", "array"},
        {"title", "Mounts"},
        {"description", "Host folders to mount into the new computer. " + where},
        {"items",
         Json{{"type", "object"},
              {"properties",
               Json{{"host_path", typed("string", "Absolute path of the folder on the host.")},
                    {"computer_path", typed("string", "Absolute path where it appears in the computer.")},
                    {"read_only", typed("boolean", "True: the computer can only read it.")}}},
              {"required", Json::array({"host_path", "computer_path"})}}}};
  }

  bool network_access_;
  std::string mount_root_;
};

// computer_restart and computer_factory_reset.
class ComputerChangeTool final : public LifecycleTool {
 public:
  enum class Change { restart, factory_reset };

  ComputerChangeTool(ComputerLifecycle& lifecycle, const char* name, const char* description,
                     const char* id_description, Change change)
      : LifecycleTool(lifecycle, name, description, id_schema(name, id_description),
                      computer_outcome_schema(),
                      tool_annotations(false, change == Change::factory_reset, true)),
        change_(change) {
    definition_.task_support = mcp::TaskSupport::optional;
  }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    const auto computer_id = call->arguments().at("computer_id").get<std::string>();
    auto done = [call](Expected<ComputerInfo> changed) {
      if (!changed) return call->finish(error_payload(changed.error().message));
      call->finish(mcp::ToolResult::from_payload(
          computers::computer_changed_report(changed.value()), false));
    };
    if (change_ == Change::restart) {
      call->become_task("Restarting computer " + computer_id);
      return cancel_with(call, lifecycle_.restart(computer_id, done));
    }
    confirm_then(call,
                 "Reset computer " + computer_id +
                     "? Its files are replaced with a fresh image; everything on it is lost.",
                 computer_id, [this, call, computer_id, done] {
                   // Asked first (a task's questions would wait for tasks/update), then long.
                   call->become_task("Resetting computer " + computer_id);
                   cancel_with(call, lifecycle_.factory_reset(computer_id, done));
                 });
  }

 private:
  Change change_;
};

class ComputerDeleteTool final : public LifecycleTool {
 public:
  explicit ComputerDeleteTool(ComputerLifecycle& lifecycle)
      : LifecycleTool(lifecycle, "computer_delete",
                      "Delete a computer and all of its files. This cannot be undone.",
                      id_schema("computer_delete", "Name of the computer to delete."),
                      outcome_schema(Json{
                          {"ok", typed("boolean", "True: the computer was deleted.")},
                          {"computer_id", typed("string", "The computer's name.")},
                          {"deleted", typed("boolean", "Always true on success.")}}),
                      tool_annotations(false, true, false)) {}

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    const auto computer_id = call->arguments().at("computer_id").get<std::string>();
    confirm_then(
        call, "Delete computer " + computer_id + " and all of its files? This cannot be undone.",
        computer_id, [this, call, computer_id] {
          auto running = lifecycle_.remove(computer_id, [call, computer_id](Expected<bool> removed) {
            if (!removed) return call->finish(error_payload(removed.error().message));
            call->finish(mcp::ToolResult::from_payload(
                computers::computer_deleted_report(computer_id), false));
          });
          cancel_with(call, running);
        });
  }
};

class ComputerForkTool final : public LifecycleTool {
 public:
  explicit ComputerForkTool(ComputerLifecycle& lifecycle)
      : LifecycleTool(
            lifecycle, "computer_fork",
            "Create and start a new computer from a checkpoint of another computer "
            "(checkpoint_create), or from its current files when no checkpoint is named. The "
            "source computer is not changed. The new computer has network access on and the "
            "desktop mode its files had; running programs are not copied.",
            object_schema(
                "computer_fork",
                Json{{"computer_id", computer_id_property("Name of the computer to fork.")},
                     {"checkpoint",
                      Json{{"description",
                            "Name of the checkpoint to start from; the current files when "
                            "omitted."},
                           {"maxLength", 63},
                           {"minLength", 1},
                           {"title", "Checkpoint"},
                           {"type", "string"}}},
                     {"new_computer_id",
                      computer_id_property("Name of the new computer; generated when omitted.")}},
                {"computer_id"}),
            outcome_schema(Json{
                {"ok", typed("boolean", "True: the new computer runs.")},
                {"computer_id", typed("string", "The new computer's name.")},
                {"sandbox_id", typed("string", "The engine's id for it.")},
                {"temporary", typed("boolean", "Always false here.")},
                {"forked_from", typed("string", "The computer it was made from.")},
                {"checkpoint", typed(Json::array({"object", "null"}),
                                     "The checkpoint it was made from; null for the current "
                                     "files.")}}),
            tool_annotations(false, false, false)) {
    definition_.task_support = mcp::TaskSupport::optional;
  }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    const Json& arguments = call->arguments();
    computers::ForkSpec spec;
    const auto source = arguments.at("computer_id").get<std::string>();
    spec.computer_id = source;
    spec.new_computer_id = arguments.contains("new_computer_id")
                               ? arguments.at("new_computer_id").get<std::string>()
                               : generated_computer_id();
    if (arguments.contains("checkpoint")) {
      spec.checkpoint = arguments.at("checkpoint").get<std::string>();
      if (auto problem = computers::checkpoint_name_problem(*spec.checkpoint)) {
        return call->finish(error_payload(*problem));
      }
    }
    call->become_task("Forking computer " + source + " into " + spec.new_computer_id);
    auto running = lifecycle_.fork_checkpoint(
        spec,
        [call](double progress, std::optional<double> total, const std::string& message) {
          call->report_progress(progress, total, message);
        },
        [call, source](Expected<computers::CheckpointOutcome> forked) {
          if (!forked) return call->finish(error_payload(forked.error().message));
          call->finish(mcp::ToolResult::from_payload(
              computers::computer_forked_report(source, forked.value()), false));
        });
    cancel_with(call, running);
  }
};

}  // namespace

std::vector<std::unique_ptr<mcp::Tool>> make_lifecycle_tools(const CatalogContext& context) {
  ComputerLifecycle& lifecycle = *context.lifecycle;
  std::vector<std::unique_ptr<mcp::Tool>> tools;
  tools.push_back(std::make_unique<ComputerListTool>(lifecycle));
  tools.push_back(std::make_unique<ComputerCreateTool>(
      lifecycle, context.registry->settings().network_access, context.mount_root));
  tools.push_back(std::make_unique<ComputerChangeTool>(
      lifecycle, "computer_restart", "Restart a computer. Its files are kept.",
      "Name of the computer to restart.", ComputerChangeTool::Change::restart));
  tools.push_back(std::make_unique<ComputerChangeTool>(
      lifecycle, "computer_factory_reset",
      "Replace a computer's files with a fresh image, keeping its name and settings. Everything "
      "on it is lost.",
      "Name of the computer to reset.", ComputerChangeTool::Change::factory_reset));
  tools.push_back(std::make_unique<ComputerDeleteTool>(lifecycle));
  if (lifecycle.offers_checkpoints()) tools.push_back(std::make_unique<ComputerForkTool>(lifecycle));
  return tools;
}

}  // namespace vc::tools
