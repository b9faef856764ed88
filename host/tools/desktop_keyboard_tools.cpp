// desktop_keyboard_tools.cpp — type, press_keys, clipboard_read, clipboard_write.
//
// Text is typed by the agent as keysyms, whatever the keyboard layout, so accented letters,
// CJK and symbols arrive as written (docs/desktop-agent.md, "type").
#include "tools/desktop_keyboard_tools.h"

#include <functional>
#include <utility>

#include "tools/desktop_tool_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

void type_text(const std::shared_ptr<DesktopCall>& call) {
  const Json& arguments = call->arguments();
  const std::string text = arguments.at("text").get<std::string>();
  const bool clear = arguments.value("clear", false);
  const bool press_enter = arguments.value("press_enter", false);
  const int64_t delay_ms = integer_argument(arguments, "delay_ms").value_or(2);
  if (text.empty() && !clear && !press_enter) {
    return call->fail("text must not be empty (set clear or press_enter to only clear or "
                      "press Enter).");
  }
  auto finish = [call, text, press_enter] {
    call->succeed(Json{{"ok", true}, {"characters", code_points(text)},
                       {"pressed_enter", press_enter}});
  };
  auto enter = [call, press_enter, finish] {
    if (!press_enter) return finish();
    call->run(Json{{"action", "press_keys"}, {"keys", "Return"}}, [finish](Json) { finish(); });
  };
  auto write = [call, text, delay_ms, enter] {
    if (text.empty()) return enter();
    call->run(Json{{"action", "type"}, {"text", text}, {"delay_ms", delay_ms}},
              [enter](Json) { enter(); });
  };
  auto clear_first = [call, clear, write] {
    if (!clear) return write();
    call->run(Json{{"action", "press_keys"}, {"keys", "ctrl+a"}}, [write](Json) { write(); });
  };
  // An element is focused by clicking it first, as the original did.
  resolve_pointer_target(call, false, [call, clear_first](std::optional<ScreenPoint> point) {
    if (!point) return clear_first();
    call->run(Json{{"action", "click"}, {"x", point->x}, {"y", point->y}, {"button", "left"},
                   {"clicks", 1}},
              [clear_first](Json) { clear_first(); });
  });
}

void press_keys(const std::shared_ptr<DesktopCall>& call) {
  const Json& arguments = call->arguments();
  const std::string keys = arguments.at("keys").get<std::string>();
  const int64_t repeat = integer_argument(arguments, "repeat").value_or(1);
  const int64_t hold_ms = integer_argument(arguments, "hold_ms").value_or(0);
  if (keys.find_first_not_of(" \t") == std::string::npos) {
    return call->fail("keys must name at least one key, e.g. 'ctrl+s' or 'Return'.");
  }
  call->run(Json{{"action", "press_keys"}, {"keys", keys}, {"repeat", repeat}, {"hold_ms", hold_ms}},
            [call, keys, repeat](Json) {
              call->succeed(Json{{"ok", true}, {"keys", keys}, {"repeat", repeat}});
            });
}

Json selection_property() {
  return choice_property("Selection",
                         "clipboard (Ctrl+C / Ctrl+V) or primary (select / middle click).",
                         {"clipboard", "primary"}, "clipboard");
}

void clipboard_read(const std::shared_ptr<DesktopCall>& call) {
  const std::string selection = call->arguments().value("selection", "clipboard");
  call->run(Json{{"action", "clipboard_read"}, {"selection", selection}},
            [call, selection](Json result) {
              call->succeed(Json{{"selection", selection}, {"text", result.value("text", "")}});
            });
}

void clipboard_write(const std::shared_ptr<DesktopCall>& call) {
  const std::string selection = call->arguments().value("selection", "clipboard");
  const std::string text = call->arguments().at("text").get<std::string>();
  call->run(Json{{"action", "clipboard_write"}, {"selection", selection}, {"text", text}},
            [call, selection, text](Json) {
              call->succeed(Json{{"ok", true}, {"selection", selection},
                                 {"characters", code_points(text)}});
            });
}

}  // namespace

void add_keyboard_tools(const DesktopToolsContext& context,
                        std::vector<std::unique_ptr<mcp::Tool>>& tools) {
  const auto add = std::bind_front(add_desktop_tool, std::cref(context), std::ref(tools));
  add(tool_definition(
          "type",
          "Type text into the focused window, or into an element (clicked first). Any Unicode "
          "text is typed as written, whatever the keyboard layout; newlines press Return.",
          object_schema(
              "type",
              input_properties(Json{{"text", bounded_string_property("Text", "The text to type, at most 10,000 "
                                                                "characters (send longer text "
                                                                "with clipboard_write and paste "
                                                                "it).",
                                                        kMaxTypedCharacters)},
                   {"element", bounded_string_property("Element",
                                                       "AT-SPI reference of the field to type "
                                                       "into.",
                                                       kMaxSelectorCharacters)},
                   {"clear", bool_property("Clear", "Select all (Ctrl+A) first, so the text "
                                                    "replaces what is there.", false)},
                   {"press_enter", bool_property("Press Enter", "Press Return afterwards.", false)},
                   {"delay_ms", integer_property("Delay Ms", "Milliseconds between keys, 0-100.",
                                                 0, 100, 2)}}),
              {"text"}),
          desktop_output_schema(Json{{"ok", typed("boolean", "True when typed.")},
                                     {"characters", typed("integer", "Characters typed.")},
                                     {"pressed_enter", typed("boolean", "Whether Return was pressed.")}}),
          acting_annotations()),
      type_text);
  add(tool_definition(
          "press_keys",
          "Press keys or chords in xdotool's syntax: 'ctrl+s', 'alt+F4', 'ctrl+shift+t', or "
          "several separated by spaces, 'ctrl+l Return'. Key names are X keysyms (Return, Tab, "
          "Escape, BackSpace, Delete, Page_Down, F5, Left, a, A, comma) plus ctrl, shift, alt, "
          "super, enter, esc.",
          object_schema(
              "press_keys",
              input_properties(Json{{"keys", bounded_string_property("Keys", "Chords joined by +, separated by "
                                                                "spaces; at most 1,000 characters.",
                                                        kMaxKeysCharacters)},
                   {"repeat", integer_property("Repeat", "Times to press the whole sequence, 1-100.",
                                               1, 100, 1)},
                   {"hold_ms", integer_property("Hold Ms", "Milliseconds each chord is held, "
                                                           "0-10000.", 0, 10000, 0)}}),
              {"keys"}),
          desktop_output_schema(Json{{"ok", typed("boolean", "True when pressed.")},
                                     {"keys", typed("string", "The keys pressed.")},
                                     {"repeat", typed("integer", "Times pressed.")}}),
          acting_annotations()),
      press_keys);
  add(tool_definition("clipboard_read", "Read the desktop's clipboard as text.",
                      object_schema("clipboard_read", Json{{"selection", selection_property()}}, {}),
                      desktop_output_schema(Json{{"selection", typed("string", "Which selection.")},
                                                 {"text", typed("string", "Its text; empty when "
                                                                          "nothing is copied.")}}),
                      looking_annotations()),
      clipboard_read);
  add(tool_definition("clipboard_write",
                      "Put text on the desktop's clipboard, to paste with Ctrl+V (Ctrl+Shift+V "
                      "in a terminal).",
                      object_schema("clipboard_write",
                                    Json{{"text", bounded_string_property(
                                                       "Text", "The text to copy, at most "
                                                               "1,048,576 characters.",
                                                       kMaxClipboardCharacters)},
                                         {"selection", selection_property()}},
                                    {"text"}),
                      desktop_output_schema(Json{{"ok", typed("boolean", "True when set.")},
                                                 {"selection", typed("string", "Which selection.")},
                                                 {"characters", typed("integer", "Characters.")}}),
                      acting_annotations()),
      clipboard_write);
}

}  // namespace vc::tools
