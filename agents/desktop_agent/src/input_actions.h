// input_actions.h — the pointer and keyboard actions, all through XTest.
#pragma once

#include "keyboard.h"
#include "protocol.h"
#include "x_connection.h"

namespace vc::desktop_agent {

json cursor_position_action(XConnection& x, const Request& request);
json pointer_move_action(XConnection& x, const Request& request);
json click_action(XConnection& x, Keyboard& keyboard, const Request& request);
json mouse_button_action(XConnection& x, const Request& request);
json drag_action(XConnection& x, Keyboard& keyboard, const Request& request);
json scroll_action(XConnection& x, Keyboard& keyboard, const Request& request);
json press_keys_action(XConnection& x, Keyboard& keyboard, const Request& request);
json type_action(XConnection& x, Keyboard& keyboard, const Request& request);
// A plain wait of `ms` (0..60000): the batches' `wait`.
json pause_action(XConnection& x, const Request& request);

}  // namespace vc::desktop_agent
