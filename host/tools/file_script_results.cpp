// file_script_results.cpp — see file_script_results.h.
#include "tools/file_script_results.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <vector>

#include "common/ascii_text.h"
#include "common/base64.h"
#include "common/utf8_repair.h"
#include "tools/file_scripts.h"

namespace vc::tools {
namespace {

using computers::ComputerInfo;
using computers::ExecOutcome;
using computers::ExecResult;

// A script that did not get to finish: a timeout, too much output, or no computer.
std::optional<std::string> interrupted(const ExecResult& result, const std::string& what,
                                       const FileToolSettings& settings) {
  if (result.outcome == ExecOutcome::timed_out) {
    return what + " timed out after " + std::to_string(settings.computer.default_timeout_s) + "s";
  }
  if (result.outcome == ExecOutcome::output_limit_exceeded) {
    return what + " produced more output than the limit allows";
  }
  return std::nullopt;
}

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Expected<FileText> decode_read_script(const Expected<ExecResult>& ran, const std::string& path,
                                      const FileToolSettings& settings) {
  if (!ran.ok()) return ran.error();
  const ExecResult& result = ran.value();
  if (auto stopped = interrupted(result, "Reading " + path, settings)) return Failure{-1, *stopped};
  const std::string& out = result.stdout_bytes;
  const auto newline = out.find('\n');
  const std::string size_text = out.substr(0, newline);
  switch (result.exit_code) {
    case 0: break;
    case kScriptMissing: return Failure{-1, "File does not exist: " + path};
    case kScriptWrongKind: return Failure{-1, "Path is not a regular file: " + path};
    case kScriptTooLarge:
      return Failure{-1, "File is " + trim_ascii_whitespace(repair_utf8(size_text)) + " bytes; text tool limit is " +
                             std::to_string(settings.text_limit) + " bytes"};
    default: {
      const std::string reason = trim_ascii_whitespace(repair_utf8(result.stderr_bytes));
      return Failure{-1, reason.empty() ? "Unable to read " + path : reason};
    }
  }
  const std::string invalid = "The computer returned invalid file data for " + path;
  if (newline == std::string::npos) return Failure{-1, invalid};
  uint64_t declared = 0;
  try {
    declared = std::stoull(trim_ascii_whitespace(size_text));
  } catch (const std::exception&) {
    return Failure{-1, invalid};
  }
  auto bytes = base64_decode(trim_ascii_whitespace(out.substr(newline + 1)));
  if (!bytes) return Failure{-1, invalid};
  if (bytes->size() != declared) return Failure{-1, "File changed while it was being read: " + path};
  if (auto bad = first_invalid_utf8(*bytes)) {
    return Failure{-1, "File is not valid UTF-8 text at byte " + std::to_string(*bad) + ": " + path};
  }
  return FileText{std::move(*bytes), result.computer};
}

Expected<ComputerInfo> decode_write_script(const Expected<ExecResult>& ran, const std::string& path,
                                           const FileToolSettings& settings) {
  if (!ran.ok()) return ran.error();
  const ExecResult& result = ran.value();
  if (auto stopped = interrupted(result, "Writing " + path, settings)) {
    return Failure{-1, *stopped};
  }
  switch (result.exit_code) {
    case 0: return result.computer;
    case kScriptNoParent: return Failure{-1, "Parent directory does not exist: " + parent_of(path)};
    case kScriptChanged: return Failure{-1, "File changed before edit could be saved: " + path};
    default: {
      const std::string reason = trim_ascii_whitespace(repair_utf8(result.stderr_bytes));
      return Failure{-1, reason.empty() ? "Unable to write " + path : reason};
    }
  }
}

Expected<Json> decode_list_script(const Expected<ExecResult>& ran, const std::string& path,
                                  const FileToolSettings& settings) {
  if (!ran.ok()) return ran.error();
  const ExecResult& result = ran.value();
  if (auto stopped = interrupted(result, "Listing " + path, settings)) return Failure{-1, *stopped};
  switch (result.exit_code) {
    case 0: break;
    case kScriptMissing: return Failure{-1, "Directory does not exist: " + path};
    case kScriptWrongKind: return Failure{-1, "Path is not a directory: " + path};
    default: {
      const std::string reason = trim_ascii_whitespace(repair_utf8(result.stderr_bytes));
      return Failure{-1, reason.empty() ? "Unable to list " + path : reason};
    }
  }
  const std::string invalid = "The computer returned invalid directory data for " + path;
  auto raw = base64_decode(trim_ascii_whitespace(result.stdout_bytes));
  if (!raw) return Failure{-1, invalid};
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t nul = raw->find('\0'); nul != std::string::npos; nul = raw->find('\0', start)) {
    fields.push_back(raw->substr(start, nul - start));
    start = nul + 1;
  }
  if (start != raw->size() || fields.size() % 3 != 0) return Failure{-1, invalid};
  struct Entry {
    std::string name;
    std::string kind;
    uint64_t size;
  };
  std::vector<Entry> entries;
  for (size_t i = 0; i < fields.size(); i += 3) {
    const std::string& type = fields[i + 1];
    uint64_t size = 0;
    try {
      size = std::stoull(fields[i + 2]);
    } catch (const std::exception&) {
      return Failure{-1, invalid};
    }
    entries.push_back({repair_utf8(fields[i]), type == "d" ? "directory" : type == "f" ? "file" : "other", size});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    const bool a_dir = a.kind == "directory";
    const bool b_dir = b.kind == "directory";
    if (a_dir != b_dir) return a_dir;
    return ascii_lower(a.name) < ascii_lower(b.name);
  });
  Json listed = Json::array();
  for (const auto& entry : entries) {
    listed.push_back(Json{{"name", entry.name},
                          {"path", path == "/" ? "/" + entry.name : path + "/" + entry.name},
                          {"kind", entry.kind},
                          {"size_bytes", entry.size}});
  }
  return listed;
}

}  // namespace vc::tools
