// process_payloads.cpp — backend documents to the process tools' payloads.
#include "tools/process_payloads.h"

#include <cstdint>
#include <string>

#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

// The fields of a process the model reads, in the order it reads them.
Json process_summary(const Json& info) {
  Json out = Json::object();
  out["process_id"] = info.value("process_id", "");
  out["command"] = info.value("command", "");
  const std::string state = info.value("state", "running");
  out["state"] = state;
  out["running"] = state == "running";
  out["exit_code"] = info.contains("exit_code") ? info["exit_code"] : Json();
  if (info.contains("signal") && info["signal"].is_string()) out["signal"] = info["signal"];
  if (info.contains("note") && info["note"].is_string()) out["note"] = info["note"];
  out["pty"] = info.value("pty", false);
  out["pid"] = info.value("pid", std::int64_t{0});
  out["started"] = info.value("started", "");
  if (info.contains("ended") && info["ended"].is_string()) out["ended"] = info["ended"];
  out["log_paths"] = info.value("log_paths", Json::object());
  return out;
}

void add_stream(Json& out, const Json& output, const char* from, const char* as) {
  out[as] = output.value(from, "");
  const auto dropped = output.value(std::string(from) + "_dropped", std::int64_t{0});
  if (dropped > 0) out[std::string(as) + "_dropped"] = dropped;
}

}  // namespace

Json process_call_payload(const Json& backend_result) {
  const Json& info = backend_result.contains("process") ? backend_result["process"] : Json();
  Json out = process_summary(info.is_object() ? info : Json::object());
  const Json output = backend_result.value("output", Json::object());
  if (out["pty"].get<bool>()) {
    add_stream(out, output, "stdout", "output");
  } else {
    add_stream(out, output, "stdout", "stdout");
    add_stream(out, output, "stderr", "stderr");
  }
  if (output.value("more", false)) out["more"] = true;
  return out;
}

Json process_output_payload(const Json& backend_result) {
  Json out = process_call_payload(backend_result);
  const Json output = backend_result.value("output", Json::object());
  out["stdout_offset"] = output.value("stdout_offset", std::int64_t{0});
  out["stderr_offset"] = output.value("stderr_offset", std::int64_t{0});
  return out;
}

Json process_list_payload(const Json& backend_result) {
  Json processes = Json::array();
  std::int64_t running = 0;
  for (const auto& info : backend_result.value("processes", Json::array())) {
    if (!info.is_object()) continue;
    Json summary = process_summary(info);
    running += summary["running"].get<bool>() ? 1 : 0;
    processes.push_back(std::move(summary));
  }
  Json out = Json::object();
  out["count"] = processes.size();
  out["running"] = running;
  out["processes"] = std::move(processes);
  return out;
}

Json process_call_output_schema() {
  return Json{
      {"type", "object"},
      {"properties",
       Json{{"process_id", typed("string", "The process's id, for process_read, process_write and process_kill.")},
            {"command", typed("string", "What runs.")},
            {"state", typed("string", "running, exited, or lost (the computer restarted under it).")},
            {"running", typed("boolean", "Whether it still runs.")},
            {"exit_code", typed(Json::array({"integer", "null"}),
                                "Its exit status once it ended (128+N after signal N); null while it runs.")},
            {"signal", typed("string", "The signal that ended it, when one did.")},
            {"note", typed("string", "Anything else to know (why it is lost).")},
            {"pty", typed("boolean", "Whether it runs in a terminal: then its output is in 'output'.")},
            {"pid", typed("integer", "Its pid in the computer.")},
            {"started", typed("string", "When it started (RFC 3339, UTC).")},
            {"ended", typed("string", "When it ended.")},
            {"stdout", typed("string", "Standard output since the last read.")},
            {"stderr", typed("string", "Standard error since the last read.")},
            {"output", typed("string", "A terminal process's output since the last read.")},
            {"stdout_dropped", typed("integer", "Bytes lost because nobody read them in time (the log file has them).")},
            {"stderr_dropped", typed("integer", "The same for stderr.")},
            {"output_dropped", typed("integer", "The same for a terminal process.")},
            {"more", typed("boolean", "More output is waiting: call process_read again.")},
            {"log_paths", typed("object", "Files in the computer with its whole output.")},
            {"error", typed("string", "Present only when the call failed; says why.")}}}};
}

Json process_output_output_schema() {
  Json schema = process_call_output_schema();
  schema["properties"]["stdout_offset"] =
      typed("integer", "Where stdout (a terminal's output) ends in what was returned: the next call's stdout_offset.");
  schema["properties"]["stderr_offset"] =
      typed("integer", "Where stderr ends in what was returned: the next call's stderr_offset.");
  return schema;
}

Json process_list_output_schema() {
  return Json{{"type", "object"},
              {"properties",
               Json{{"processes", typed("array", "Every process the computer holds, oldest first.")},
                    {"count", typed("integer", "How many it holds.")},
                    {"running", typed("integer", "How many of them run.")},
                    {"error", typed("string", "Present only when the call failed; says why.")}}}};
}

}  // namespace vc::tools
