// conformance_fixtures.cpp — see conformance_fixtures.h. Payloads follow the suite's scenario
// descriptions (0.1.16) word for word where it gives them.
#include "tools/conformance_fixtures.h"

#include <cstdint>
#include <functional>
#include <regex>
#include <string>

#include "common/base64.h"

namespace vc::tools {
namespace {

// A 1x1 PNG.
constexpr const char* kPngBase64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

// A 10 ms silent WAV: 8 kHz, 8-bit mono.
std::string wav_base64() {
  const uint32_t samples = 80;
  std::string wav;
  auto u32 = [&wav](uint32_t v) {
    for (int b = 0; b < 4; ++b) wav += static_cast<char>((v >> (8 * b)) & 0xff);
  };
  auto u16 = [&wav](uint16_t v) {
    wav += static_cast<char>(v & 0xff);
    wav += static_cast<char>(v >> 8);
  };
  wav += "RIFF";
  u32(36 + samples);
  wav += "WAVEfmt ";
  u32(16);
  u16(1);      // PCM
  u16(1);      // mono
  u32(8000);   // sample rate
  u32(8000);   // byte rate
  u16(1);      // block align
  u16(8);      // bits per sample
  wav += "data";
  u32(samples);
  wav += std::string(samples, static_cast<char>(0x80));
  return base64_encode(wav);
}

Json text(const std::string& value) { return Json{{"type", "text"}, {"text", value}}; }
Json image() { return Json{{"type", "image"}, {"data", kPngBase64}, {"mimeType", "image/png"}}; }

mcp::ToolResult content_result(Json content) {
  mcp::ToolResult result;
  result.content = std::move(content);
  return result;
}

// Runs `step` after `delay_ms` on `loop`, holding `call` until then.
void after(uv_loop_t* loop, uint64_t delay_ms, std::function<void()> step) {
  auto* timer = new uv_timer_t;
  uv_timer_init(loop, timer);
  timer->data = new std::function<void()>(std::move(step));
  uv_timer_start(
      timer,
      [](uv_timer_t* fired) {
        auto* pending = static_cast<std::function<void()>*>(fired->data);
        (*pending)();
        delete pending;
        uv_close(reinterpret_cast<uv_handle_t*>(fired),
                 [](uv_handle_t* handle) { delete reinterpret_cast<uv_timer_t*>(handle); });
      },
      delay_ms, 0);
}

class FixtureTool final : public mcp::Tool {
 public:
  using Handler = std::function<void(const std::shared_ptr<mcp::ToolCall>&)>;
  FixtureTool(std::string name, std::string description, Json input_schema, Handler handler)
      : handler_(std::move(handler)) {
    definition_.name = std::move(name);
    definition_.description = std::move(description);
    definition_.input_schema = std::move(input_schema);
  }
  const mcp::ToolDefinition& definition() const override { return definition_; }
  void call(std::shared_ptr<mcp::ToolCall> call) override { handler_(call); }

 private:
  mcp::ToolDefinition definition_;
  Handler handler_;
};

Json no_arguments() { return Json{{"type", "object"}, {"properties", Json::object()}}; }

Json string_argument(const std::string& name, const std::string& description) {
  return Json{{"type", "object"},
              {"properties", {{name, {{"type", "string"}, {"description", description}}}}},
              {"required", {name}}};
}

// Asks the client through elicitation/create and finishes with `label` and its answer.
void elicit(const std::shared_ptr<mcp::ToolCall>& call, const std::string& message,
            Json schema, const std::string& label) {
  if (!call->client_supports("elicitation")) {
    call->finish(mcp::ToolResult::error_text("The client does not support elicitation"));
    return;
  }
  call->request_client(
      "elicitation/create", Json{{"message", message}, {"requestedSchema", std::move(schema)}},
      [call, label](Expected<Json> answer) {
        if (!answer) return call->finish(mcp::ToolResult::error_text(answer.failure().message));
        const Json& result = answer.value();
        call->finish(content_result(Json::array(
            {text(label + "action=" + result.value("action", "") +
                  ", content=" + result.value("content", Json::object()).dump())})));
      });
}

std::vector<std::unique_ptr<mcp::Tool>> fixture_tools(uv_loop_t* loop) {
  std::vector<std::unique_ptr<mcp::Tool>> tools;
  auto add = [&tools](std::string name, std::string description, Json schema,
                      FixtureTool::Handler handler) {
    tools.push_back(std::make_unique<FixtureTool>(std::move(name), std::move(description),
                                                  std::move(schema), std::move(handler)));
  };

  add("test_simple_text", "Returns simple text content", no_arguments(), [](const auto& call) {
    call->finish(content_result(Json::array({text("This is a simple text response for testing.")})));
  });
  add("test_image_content", "Returns image content", no_arguments(), [](const auto& call) {
    call->finish(content_result(Json::array({image()})));
  });
  add("test_audio_content", "Returns audio content", no_arguments(), [](const auto& call) {
    call->finish(content_result(
        Json::array({{{"type", "audio"}, {"data", wav_base64()}, {"mimeType", "audio/wav"}}})));
  });
  add("test_embedded_resource", "Returns an embedded resource", no_arguments(), [](const auto& call) {
    call->finish(content_result(Json::array(
        {{{"type", "resource"},
          {"resource",
           {{"uri", "test://embedded-resource"},
            {"mimeType", "text/plain"},
            {"text", "This is an embedded resource content."}}}}})));
  });
  add("test_multiple_content_types", "Returns text, image and resource content", no_arguments(),
      [](const auto& call) {
        call->finish(content_result(Json::array(
            {text("Multiple content types test:"), image(),
             {{"type", "resource"},
              {"resource",
               {{"uri", "test://mixed-content-resource"},
                {"mimeType", "application/json"},
                {"text", R"({"test":"data","value":123})"}}}}})));
      });
  add("test_tool_with_logging", "Sends three log messages while it runs", no_arguments(),
      [loop](const auto& call) {
        call->log(mcp::LogLevel::info, "Tool execution started");
        after(loop, 50, [loop, call] {
          call->log(mcp::LogLevel::info, "Tool processing data");
          after(loop, 50, [call] {
            call->log(mcp::LogLevel::info, "Tool execution completed");
            call->finish(content_result(Json::array({text("Tool with logging executed successfully")})));
          });
        });
      });
  add("test_error_handling", "Always fails", no_arguments(), [](const auto& call) {
    call->finish(mcp::ToolResult::error_text("This tool intentionally returns an error for testing"));
  });
  add("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100", no_arguments(),
      [loop](const auto& call) {
        call->report_progress(0, 100, "");
        after(loop, 50, [loop, call] {
          call->report_progress(50, 100, "");
          after(loop, 50, [call] {
            call->report_progress(100, 100, "");
            call->finish(content_result(Json::array({text("Tool with progress executed successfully")})));
          });
        });
      });
  add("test_sampling", "Asks the client's LLM through sampling/createMessage",
      string_argument("prompt", "The prompt to send to the LLM"), [](const auto& call) {
        if (!call->client_supports("sampling")) {
          call->finish(mcp::ToolResult::error_text("The client does not support sampling"));
          return;
        }
        const std::string prompt = call->arguments().value("prompt", "");
        call->request_client(
            "sampling/createMessage",
            Json{{"messages", Json::array({{{"role", "user"}, {"content", text(prompt)}}})},
                 {"maxTokens", 100}},
            [call](Expected<Json> answer) {
              if (!answer) return call->finish(mcp::ToolResult::error_text(answer.failure().message));
              const Json content = answer.value().value("content", Json::object());
              const std::string reply =
                  content.is_object() ? content.value("text", content.dump()) : content.dump();
              call->finish(content_result(Json::array({text("LLM response: " + reply)})));
            });
      });
  add("test_elicitation", "Asks the user through elicitation/create",
      string_argument("message", "The message to show the user"), [](const auto& call) {
        elicit(call, call->arguments().value("message", ""),
               Json{{"type", "object"},
                    {"properties",
                     {{"username", {{"type", "string"}, {"description", "User's response"}}},
                      {"email", {{"type", "string"}, {"description", "User's email address"}}}}},
                    {"required", {"username", "email"}}},
               "User response: ");
      });
  add("test_elicitation_sep1034_defaults", "Elicitation with defaults for every primitive type",
      no_arguments(), [](const auto& call) {
        elicit(call, "Please review and update the form fields with defaults",
               Json{{"type", "object"},
                    {"properties",
                     {{"name", {{"type", "string"}, {"description", "User name"}, {"default", "John Doe"}}},
                      {"age", {{"type", "integer"}, {"description", "User age"}, {"default", 30}}},
                      {"score", {{"type", "number"}, {"description", "User score"}, {"default", 95.5}}},
                      {"status",
                       {{"type", "string"},
                        {"description", "User status"},
                        {"enum", {"active", "inactive", "pending"}},
                        {"default", "active"}}},
                      {"verified", {{"type", "boolean"}, {"description", "Verified"}, {"default", true}}}}}},
               "Elicitation completed: ");
      });
  add("test_elicitation_sep1330_enums", "Elicitation with the five enum schema forms",
      no_arguments(), [](const auto& call) {
        const Json titled_single = Json::array({{{"const", "value1"}, {"title", "First Option"}},
                                                {{"const", "value2"}, {"title", "Second Option"}},
                                                {{"const", "value3"}, {"title", "Third Option"}}});
        const Json titled_multi = Json::array({{{"const", "value1"}, {"title", "First Choice"}},
                                               {{"const", "value2"}, {"title", "Second Choice"}},
                                               {{"const", "value3"}, {"title", "Third Choice"}}});
        elicit(call, "Please select options from the enum fields",
               Json{{"type", "object"},
                    {"properties",
                     {{"untitledSingle",
                       {{"type", "string"}, {"description", "Untitled single-select"},
                        {"enum", {"option1", "option2", "option3"}}}},
                      {"titledSingle",
                       {{"type", "string"}, {"description", "Titled single-select"},
                        {"oneOf", titled_single}}},
                      {"legacyEnum",
                       {{"type", "string"}, {"description", "Legacy titled enum"},
                        {"enum", {"opt1", "opt2", "opt3"}},
                        {"enumNames", {"Option One", "Option Two", "Option Three"}}}},
                      {"untitledMulti",
                       {{"type", "array"}, {"description", "Untitled multi-select"},
                        {"items", {{"type", "string"}, {"enum", {"option1", "option2", "option3"}}}}}},
                      {"titledMulti",
                       {{"type", "array"}, {"description", "Titled multi-select"},
                        {"items", {{"anyOf", titled_multi}}}}}}}},
               "Elicitation completed: ");
      });
  return tools;
}

class FixtureCatalog final : public mcp::ContentCatalog {
 public:
  Json resources() const override {
    return Json::array({{{"uri", "test://static-text"},
                         {"name", "Static Text Resource"},
                         {"description", "A static text resource for testing"},
                         {"mimeType", "text/plain"}},
                        {{"uri", "test://static-binary"},
                         {"name", "Static Binary Resource"},
                         {"description", "A static binary resource (image) for testing"},
                         {"mimeType", "image/png"}},
                        {{"uri", "test://watched-resource"},
                         {"name", "Watched Resource"},
                         {"description", "A resource clients may subscribe to"},
                         {"mimeType", "text/plain"}}});
  }

  Json resource_templates() const override {
    return Json::array({{{"uriTemplate", "test://template/{id}/data"},
                         {"name", "Resource Template"},
                         {"description", "A resource template with parameter substitution"},
                         {"mimeType", "application/json"}}});
  }

  std::optional<Json> read_resource(const std::string& uri) const override {
    if (uri == "test://static-text") {
      return contents(Json{{"uri", uri}, {"mimeType", "text/plain"},
                           {"text", "This is the content of the static text resource."}});
    }
    if (uri == "test://static-binary") {
      return contents(Json{{"uri", uri}, {"mimeType", "image/png"}, {"blob", kPngBase64}});
    }
    if (uri == "test://watched-resource") {
      return contents(Json{{"uri", uri}, {"mimeType", "text/plain"}, {"text", "Watched resource content"}});
    }
    static const std::regex kTemplate("^test://template/([^/]+)/data$");
    std::smatch match;
    if (std::regex_match(uri, match, kTemplate)) {
      const std::string id = match[1];
      return contents(Json{{"uri", uri},
                           {"mimeType", "application/json"},
                           {"text", Json{{"id", id}, {"templateTest", true},
                                         {"data", "Data for ID: " + id}}.dump()}});
    }
    return std::nullopt;
  }

  Json prompts() const override {
    return Json::array(
        {{{"name", "test_simple_prompt"}, {"description", "A simple prompt without arguments"}},
         {{"name", "test_prompt_with_arguments"},
          {"description", "A prompt with required arguments"},
          {"arguments",
           {{{"name", "arg1"}, {"description", "First test argument"}, {"required", true}},
            {{"name", "arg2"}, {"description", "Second test argument"}, {"required", true}}}}},
         {{"name", "test_prompt_with_embedded_resource"},
          {"description", "A prompt that embeds a resource"},
          {"arguments",
           {{{"name", "resourceUri"}, {"description", "URI of the resource to embed"}, {"required", true}}}}},
         {{"name", "test_prompt_with_image"}, {"description", "A prompt with image content"}}});
  }

  Expected<Json> get_prompt(const std::string& name, const Json& arguments) const override {
    auto argument = [&arguments](const char* key) -> std::optional<std::string> {
      if (!arguments.is_object() || !arguments.contains(key) || !arguments[key].is_string()) {
        return std::nullopt;
      }
      return arguments[key].get<std::string>();
    };
    if (name == "test_simple_prompt") {
      return messages({user(text("This is a simple prompt for testing."))});
    }
    if (name == "test_prompt_with_arguments") {
      const auto arg1 = argument("arg1");
      const auto arg2 = argument("arg2");
      if (!arg1 || !arg2) return Failure{-1, "test_prompt_with_arguments needs arg1 and arg2"};
      return messages({user(text("Prompt with arguments: arg1='" + *arg1 + "', arg2='" + *arg2 + "'"))});
    }
    if (name == "test_prompt_with_embedded_resource") {
      const auto uri = argument("resourceUri");
      if (!uri) return Failure{-1, "test_prompt_with_embedded_resource needs resourceUri"};
      return messages({user(Json{{"type", "resource"},
                                 {"resource",
                                  {{"uri", *uri},
                                   {"mimeType", "text/plain"},
                                   {"text", "Embedded resource content for testing."}}}}),
                       user(text("Please process the embedded resource above."))});
    }
    if (name == "test_prompt_with_image") {
      return messages({user(image()), user(text("Please analyze the image above."))});
    }
    return Failure{-1, "unknown prompt: " + name};
  }

  Json complete(const Json& ref, const std::string& argument, const std::string& value) const override {
    static const std::vector<std::string> kWords = {"paris", "park", "party", "hello", "world"};
    Json values = Json::array();
    if (ref.value("name", "") != "test_prompt_with_arguments" || argument.empty()) return values;
    for (const auto& word : kWords) {
      if (word.rfind(value, 0) == 0) values.push_back(word);
    }
    return values;
  }

 private:
  static Json contents(Json item) { return Json{{"contents", Json::array({std::move(item)})}}; }
  static Json user(Json content) { return Json{{"role", "user"}, {"content", std::move(content)}}; }
  static Json messages(std::initializer_list<Json> items) {
    Json list = Json::array();
    for (const auto& item : items) list.push_back(item);
    return Json{{"messages", std::move(list)}};
  }
};

}  // namespace

std::vector<std::unique_ptr<mcp::Tool>> make_conformance_fixture_tools(uv_loop_t* loop) {
  return fixture_tools(loop);
}

std::unique_ptr<mcp::ContentCatalog> make_conformance_fixture_catalog() {
  return std::make_unique<FixtureCatalog>();
}

}  // namespace vc::tools
