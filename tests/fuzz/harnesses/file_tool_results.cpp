// file_tool_results — what a computer answers the file tools: the output and exit code of the
// read, write and listing scripts (file_scripts.h) as the tools decode them
// (file_script_results.h): the size line and base64 of read_file, the base64 of NUL-separated
// name/kind/size triples of list_directory, the exit codes of all three, a timeout, an output
// overflow, or no result at all. The agent controls the computer, so none of it is trusted.
// Also the path rules every file tool applies to its path argument (file_path.h).
//
// Input: byte 0 picks the decoder (bits 0-1: read, write, list, path) and how the command
// ended (bits 2-3: exited, timed out, over the output limit, failed); byte 1 the exit code
// (0, 65, 66, 67, 68, 73, 1, or 1-32 from its high bits); byte 2 the length of stderr, which
// comes next; stdout is the rest. For the path rules, bits 4-5 pick the workspace and the rest
// is the path argument.
//
// Beyond "no crash": every message and payload is valid UTF-8 (the HTTP activity feed prints
// them with a strict JSON dump); a decoded file is valid UTF-8, as long as its size line says,
// and never longer than the output it came from; a listing has at most one entry per three
// decoded fields, directories first, each entry's path under the listed one. A resolved path
// is absolute, normalised (normalising it again changes nothing) and has no "." or ".."
// segment.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/json.h"
#include "common/utf8_repair.h"
#include "tools/file_path.h"
#include "tools/file_script_results.h"

namespace {

using vc::Json;
using vc::computers::ExecOutcome;
using vc::computers::ExecResult;

constexpr const char* kFilePath = "/workspace/notes.txt";

void check_text(const std::string& text) {
  if (vc::first_invalid_utf8(text)) __builtin_trap();
  (void)Json(text).dump();  // throws on invalid UTF-8, as the activity feed's dump would
}

void check_read(const vc::Expected<ExecResult>& ran, const vc::tools::FileToolSettings& settings) {
  auto text = vc::tools::decode_read_script(ran, kFilePath, settings);
  if (!text) return check_text(text.error().message);
  const std::string& bytes = text.value().bytes;
  if (vc::first_invalid_utf8(bytes) || bytes.size() > ran.value().stdout_bytes.size()) {
    __builtin_trap();
  }
  const std::string& out = ran.value().stdout_bytes;
  if (std::stoull(out.substr(0, out.find('\n'))) != bytes.size()) __builtin_trap();
}

void check_write(const vc::Expected<ExecResult>& ran, const vc::tools::FileToolSettings& settings) {
  auto written = vc::tools::decode_write_script(ran, kFilePath, settings);
  if (!written) check_text(written.error().message);
}

void check_list(const vc::Expected<ExecResult>& ran, const std::string& path,
                const vc::tools::FileToolSettings& settings) {
  auto entries = vc::tools::decode_list_script(ran, path, settings);
  if (!entries) return check_text(entries.error().message);
  const Json& listed = entries.value();
  (void)listed.dump();  // strict: every name was made valid UTF-8
  if (!listed.is_array() || listed.size() * 4 > ran.value().stdout_bytes.size()) __builtin_trap();
  const std::string prefix = path == "/" ? "/" : path + "/";
  bool files_begun = false;
  for (const auto& entry : listed) {
    const std::string& kind = entry.at("kind").get_ref<const std::string&>();
    if (kind != "directory" && kind != "file" && kind != "other") __builtin_trap();
    if (kind != "directory") files_begun = true;
    if (kind == "directory" && files_begun) __builtin_trap();
    if (entry.at("path") != prefix + entry.at("name").get<std::string>()) __builtin_trap();
    if (!entry.at("size_bytes").is_number_unsigned()) __builtin_trap();
  }
}

void check_path(std::string_view argument, uint8_t mode) {
  static const char* const kWorkspaces[] = {"/workspace", "/", "/home/user/", "//srv/./data/.."};
  const std::string path(argument);
  auto resolved = vc::tools::resolve_file_path(path, kWorkspaces[(mode >> 4) & 3]);
  if (!resolved) return check_text(resolved.error().message);
  const std::string& absolute = resolved.value();
  if (absolute.empty() || absolute.front() != '/') __builtin_trap();
  if (vc::tools::normalise_posix_path(absolute) != absolute) __builtin_trap();
  const std::string body = absolute.rfind("//", 0) == 0 ? absolute.substr(2) : absolute.substr(1);
  if (body.empty()) return;
  if (body.front() == '/' || body.back() == '/') __builtin_trap();
  for (const std::string_view bad : {"//", "/./", "/../"}) {
    if (("/" + body + "/").find(bad) != std::string::npos) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const uint8_t mode = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((mode & 3) == 3) {
    check_path(rest, mode);
    return 0;
  }
  static const int kExitCodes[] = {0, 65, 66, 67, 68, 73, 1};
  const uint8_t code = static_cast<uint8_t>(rest[0]);
  const size_t stderr_length = std::min<size_t>(static_cast<uint8_t>(rest[1]), rest.size() - 2);
  rest.remove_prefix(2);

  ExecResult result;
  result.exit_code = (code & 7) < 7 ? kExitCodes[code & 7] : 1 + (code >> 3);
  result.stderr_bytes = std::string(rest.substr(0, stderr_length));
  result.stdout_bytes = std::string(rest.substr(stderr_length));
  result.computer.computer_id = "fuzz-computer";
  const int ending = (mode >> 2) & 3;
  if (ending == 1) result.outcome = ExecOutcome::timed_out;
  if (ending == 2) result.outcome = ExecOutcome::output_limit_exceeded;
  const vc::Expected<ExecResult> ran =
      ending == 3 ? vc::Expected<ExecResult>(vc::Failure{-1, "The computer is not running."})
                  : vc::Expected<ExecResult>(result);

  vc::tools::FileToolSettings settings;
  settings.computer.computer_id = "fuzz-computer";
  settings.text_limit = 1024;
  if ((mode & 3) == 0) check_read(ran, settings);
  if ((mode & 3) == 1) check_write(ran, settings);
  if ((mode & 3) == 2) check_list(ran, (mode & 0x10) != 0 ? "/" : "/workspace", settings);
  return 0;
}
