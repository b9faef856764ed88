// schema_validator — a tool's arguments as the session checks them: the first byte picks one
// of the real input schemas (every tool of the catalog, the lifecycle tools and the
// conformance fixtures' tools included), the rest is read as the arguments document (with the
// session's nesting limit) and validated; on success its integers are normalised, otherwise
// the violation becomes the tool's "Input validation error" result and goes on the wire.
// terminal_execute's arguments that pass also go through its argument reader, which relies on
// the schema having checked their types.
//
// Beyond "no crash": a violation message is valid UTF-8 text; a document that conforms still
// conforms after normalize_integers, a second normalisation changes nothing, and every value
// the schema wants as an integer is stored as one.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/utf8_repair.h"
#include "fixtures/conformance_fixtures.h"
#include "fuzz_tool_fixture.h"
#include "mcp/jsonrpc.h"
#include "mcp/schema_validator.h"
#include "tools/terminal_execute_arguments.h"

namespace {

using vc::Json;

struct NamedSchema {
  std::string tool;
  Json schema;
};

// Copied out of the real tools once; the tools themselves are not needed afterwards.
const std::vector<NamedSchema>& schemas() {
  static const std::vector<NamedSchema> all = [] {
    std::vector<NamedSchema> copied;
    uv_loop_t loop;
    uv_loop_init(&loop);
    {
      vc::fuzz::ToolFixture fixture(&loop);
      auto fixtures = vc::conformance::make_conformance_fixture_tools(&loop);
      for (const auto& tool : fixture.tools) {
        copied.push_back({tool->definition().name, tool->definition().input_schema});
      }
      for (const auto& tool : fixtures) {
        copied.push_back({tool->definition().name, tool->definition().input_schema});
      }
    }
    uv_loop_close(&loop);
    return copied;
  }();
  return all;
}

// The oracle's own reading of "this schema wants an integer", written apart from the
// validator's on purpose: sharing the code under test would let one bug pass both.
bool wants_integer(const Json& schema) {
  const auto type = schema.find("type");
  if (type == schema.end()) return false;
  if (type->is_string()) return *type == "integer";
  if (!type->is_array()) return false;
  bool integer = false;
  for (const auto& name : *type) {
    if (name == "number") return false;
    integer = integer || name == "integer";
  }
  return integer;
}

// Every float the schema asks to be an integer and that has an int64 form is one now.
void check_normalised(const Json& schema, const Json& value) {
  if (!schema.is_object()) return;
  if (value.is_number_float() && wants_integer(schema)) {
    const double number = value.get<double>();
    if (number > -9.0e18 && number < 9.0e18) __builtin_trap();
  }
  if (value.is_array()) {
    const auto items = schema.find("items");
    if (items == schema.end()) return;
    for (const auto& item : value) check_normalised(*items, item);
    return;
  }
  if (!value.is_object()) return;
  const auto properties = schema.find("properties");
  const auto additional = schema.find("additionalProperties");
  for (const auto& [name, member] : value.items()) {
    if (properties != schema.end() && properties->is_object() && properties->contains(name)) {
      check_normalised((*properties)[name], member);
    } else if (additional != schema.end() && additional->is_object()) {
      check_normalised(*additional, member);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vc::fuzz::silence_logging();
  if (size == 0) return 0;
  const NamedSchema& picked = schemas()[data[0] % schemas().size()];
  auto parsed =
      vc::mcp::jsonrpc::parse(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  if (!parsed) return 0;
  Json arguments = std::move(parsed).value();

  if (auto violation = vc::mcp::find_schema_violation(picked.schema, arguments)) {
    if (vc::first_invalid_utf8(*violation)) __builtin_trap();
    const Json reply = vc::mcp::jsonrpc::make_result(
        1, vc::mcp::ToolResult::error_text("Input validation error: " + *violation).to_json());
    (void)vc::mcp::jsonrpc::serialize(reply);
    return 0;
  }
  vc::mcp::normalize_integers(picked.schema, arguments);
  if (vc::mcp::find_schema_violation(picked.schema, arguments)) __builtin_trap();
  check_normalised(picked.schema, arguments);
  Json again = arguments;
  vc::mcp::normalize_integers(picked.schema, again);
  if (again != arguments) __builtin_trap();
  if (picked.tool == "terminal_execute" && arguments.is_object()) {
    (void)vc::tools::read_terminal_execute_arguments(arguments, 120, 2097152);
  }
  return 0;
}
