/* vc_sdk.h — umbrella header of the mcp-virtual-computer backend SDK, ABI major 1.
 * Include this one header to write a backend plugin in C or C++. */
#ifndef VC_BACKEND_1_SDK_H
#define VC_BACKEND_1_SDK_H

#include "vc_abi.h"
#include "vc_backend.h"
#include "vc_host.h"
#include "vc_op.h"
#include "vc_option.h"
#include "vc_plugin.h"
#include "vc_status.h"
#include "ext/vc_host_thread_check.h"
#include "ext/vc_backend_desktop_control.h"
#include "ext/vc_backend_checkpoints.h"

#endif /* VC_BACKEND_1_SDK_H */
