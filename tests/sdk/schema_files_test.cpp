// schema_files_test.cpp — the SDK's JSON Schemas: every operation of vc_backend_ops has a
// request and a result schema, every file is valid JSON declaring draft 2020-12, and every
// local $ref points at a file and a definition that exist.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// One per operation slot of vc_backend_ops, in header order.
const char* const kOperations[] = {
    "validate",          "ensure_image",            "create",
    "attach",            "list",                    "restart",
    "remove",            "factory_reset",           "set_network_access",
    "get_desktop_environment", "set_desktop_environment", "exec",
    "wait_for_death",    "tool_instructions",
    "desktop_action",  // the desktop-control extension's op
    // the checkpoints extension's ops
    "create_checkpoint", "list_checkpoints", "restore_checkpoint", "fork_checkpoint",
    "delete_checkpoint",
    // the processes extension's ops
    "start_process", "read_process", "write_process", "kill_process", "list_processes",
};

const char* const kSharedDocuments[] = {"computer_info.json", "progress_event.json",
                                        "error_details.json", "config.json",
                                        "checkpoint_info.json", "process_info.json",
                                        "process_output.json"};

json load(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);  // throws on invalid JSON: the test fails with the parser's message
}

// Calls `visit` for every "$ref" string anywhere in `node`.
template <typename Visit>
void for_each_ref(const json& node, Visit&& visit) {
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it.key() == "$ref" && it->is_string()) visit(it->get<std::string>());
      else for_each_ref(*it, visit);
    }
  } else if (node.is_array()) {
    for (const auto& item : node) for_each_ref(item, visit);
  }
}

std::vector<fs::path> schema_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(VC_SCHEMA_DIR)) files.push_back(entry.path());
  return files;
}

TEST(SchemaFiles, EveryOperationHasRequestAndResult) {
  for (const char* op : kOperations) {
    for (const char* kind : {".request.json", ".result.json"}) {
      fs::path file = fs::path(VC_SCHEMA_DIR) / (std::string(op) + kind);
      EXPECT_TRUE(fs::is_regular_file(file)) << file;
    }
  }
  for (const char* name : kSharedDocuments) {
    EXPECT_TRUE(fs::is_regular_file(fs::path(VC_SCHEMA_DIR) / name)) << name;
  }
}

TEST(SchemaFiles, NothingElseLivesThere) {
  std::set<std::string> expected(std::begin(kSharedDocuments), std::end(kSharedDocuments));
  for (const char* op : kOperations) {
    expected.insert(std::string(op) + ".request.json");
    expected.insert(std::string(op) + ".result.json");
  }
  for (const auto& file : schema_files()) {
    EXPECT_TRUE(expected.count(file.filename().string())) << "unexpected file " << file;
  }
}

TEST(SchemaFiles, EachIsA2020_12ObjectSchema) {
  for (const auto& file : schema_files()) {
    SCOPED_TRACE(file.string());
    json schema;
    ASSERT_NO_THROW(schema = load(file));
    ASSERT_TRUE(schema.is_object());
    EXPECT_EQ(schema.value("$schema", ""), "https://json-schema.org/draft/2020-12/schema");
    EXPECT_TRUE(schema.contains("title"));
    EXPECT_TRUE(schema.contains("description"));
    // Readers tolerate unknown fields: no schema may forbid them at the top level.
    EXPECT_NE(schema.value("additionalProperties", json(true)), json(false));
    EXPECT_TRUE(schema.value("type", "") == "object" || schema.contains("$ref"));
  }
}

TEST(SchemaFiles, ReferencesResolve) {
  for (const auto& file : schema_files()) {
    SCOPED_TRACE(file.string());
    json schema = load(file);
    for_each_ref(schema, [&](const std::string& ref) {
      auto hash = ref.find('#');
      std::string target_file = ref.substr(0, hash);
      json target = target_file.empty() ? schema : load(fs::path(VC_SCHEMA_DIR) / target_file);
      if (hash != std::string::npos && hash + 1 < ref.size()) {
        EXPECT_TRUE(target.contains(json::json_pointer(ref.substr(hash + 1)))) << ref;
      }
    });
  }
}

TEST(SchemaFiles, ComputerIdPatternIsTheSlugRule) {
  json info = load(fs::path(VC_SCHEMA_DIR) / "computer_info.json");
  EXPECT_EQ(info["$defs"]["computer_id"]["pattern"], "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$");
  std::set<std::string> required = info["required"];
  for (const char* field : {"computer_id", "sandbox_id", "state", "temporary", "image",
                            "created_at", "network_access", "desktop_environment", "desktop_url"}) {
    EXPECT_TRUE(required.count(field)) << field;
  }
}

}  // namespace
