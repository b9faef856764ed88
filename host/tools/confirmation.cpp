// confirmation.cpp — see confirmation.h.
#include "tools/confirmation.h"

#include <utility>

namespace vc::tools {
namespace {

constexpr const char* kAnswerKey = "confirm";

Json question_params(const std::string& question) {
  return Json{{"mode", "form"},
              {"message", question},
              {"requestedSchema",
               {{"type", "object"},
                {"properties",
                 {{kAnswerKey,
                   {{"type", "boolean"},
                    {"title", "Go ahead"},
                    {"description", "Check to go ahead; this cannot be undone."}}}}},
                {"required", Json::array({kAnswerKey})}}}};
}

// Whether an elicitation result says yes.
bool agreed(const Json& answer) {
  if (!answer.is_object() || answer.value("action", Json()) != "accept") return false;
  const Json content = answer.value("content", Json());
  return content.is_object() && content.value(kAnswerKey, Json()) == true;
}

void refuse(const std::shared_ptr<mcp::ToolCall>& call, const std::string& subject) {
  call->finish(mcp::ToolResult::from_payload(
      Json{{"ok", false},
           {"computer_id", subject},
           {"error", "Nothing was done: the person did not confirm it."}},
      true));
}

}  // namespace

void confirm_then(const std::shared_ptr<mcp::ToolCall>& call, const std::string& question,
                  const std::string& subject, std::function<void()> go) {
  if (!call->client_supports("elicitation")) return go();
  if (call->asks_with_input_required()) {
    const Json& answers = call->input_responses();
    const Json& state = call->request_state();
    const bool asked = state.is_object() && state.value("confirming", Json()) == subject;
    if (asked && answers.is_object() && answers.contains(kAnswerKey)) {
      return agreed(answers[kAnswerKey]) ? go() : refuse(call, subject);
    }
    return call->finish(mcp::ToolResult::input_required(
        Json{{kAnswerKey, {{"method", "elicitation/create"}, {"params", question_params(question)}}}},
        Json{{"confirming", subject}}));
  }
  call->request_client("elicitation/create", question_params(question),
                       [call, subject, go = std::move(go)](Expected<Json> answer) {
                         if (answer && agreed(answer.value())) return go();
                         refuse(call, subject);
                       });
}

}  // namespace vc::tools
