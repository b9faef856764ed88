/* ext/vc_backend_desktop_control.h — backend extension "vc.backend.desktop-control/1".
 *
 * Drives a computer's live desktop: the screen, the pointer, the keyboard, windows, the
 * clipboard, the accessibility tree, launching applications. A backend whose computers have a
 * desktop the agent can drive returns this table from
 *   backend->ops->get_extension(backend, VC_EXT_BACKEND_DESKTOP_CONTROL);
 * and NULL when it has none (the host then offers no desktop tools).
 *
 * One operation, desktop_action, with the vc_async_op_fn contract of vc_backend.h:
 *   request  {"computer_id", "action", ...the action's fields}
 *   result   the action's result object
 * The actions, their fields, results and messages are the desktop agent protocol
 * (docs/desktop-agent.md in the source tree; schemas/desktop_action.request.json lists them).
 * All coordinates are screen pixels. Failures use the usual statuses:
 *   VC_E_INVALID_ARGUMENT  the request is wrong (a coordinate off the screen, an unknown key);
 *                          nothing was done
 *   VC_E_NOT_FOUND         a window, element or application that is not there; or no computer
 *   VC_E_UNAVAILABLE       the desktop cannot be driven now (Xfce off, the screen restarting)
 *   VC_E_UNSUPPORTED       the computer's image has no desktop agent
 *   VC_E_TIMEOUT           the action did not finish in time
 * Desktop actions on one computer run one at a time, in call order, independently of its
 * execs and lifecycle operations. cancel() stops waiting for the action; an input event
 * already sent is not undone.
 *
 * A published extension struct is frozen: a change means a new "/<rev>" id.
 */
#ifndef VC_BACKEND_1_EXT_BACKEND_DESKTOP_CONTROL_H
#define VC_BACKEND_1_EXT_BACKEND_DESKTOP_CONTROL_H

#include "../vc_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VC_EXT_BACKEND_DESKTOP_CONTROL "vc.backend.desktop-control/1"

typedef struct vc_backend_desktop_control {
  uint32_t struct_size;
  uint32_t reserved0;
  /* [loop-thread], must not block; the vc_async_op_fn contract. */
  vc_async_op_fn desktop_action;
} vc_backend_desktop_control;

#ifdef __cplusplus
}
#endif
#endif /* VC_BACKEND_1_EXT_BACKEND_DESKTOP_CONTROL_H */
