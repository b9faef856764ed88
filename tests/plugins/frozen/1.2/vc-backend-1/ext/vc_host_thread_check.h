/* ext/vc_host_thread_check.h — host extension "vc.host.thread-check/1".
 *
 * Lets a plugin assert, in debug builds, that it is on the host's loop thread. Obtain it with
 *   const vc_host_thread_check *tc = host->get_extension(host, VC_EXT_HOST_THREAD_CHECK);
 * A published extension struct is frozen: a change means a new "/<rev>" id.
 */
#ifndef VC_BACKEND_1_EXT_HOST_THREAD_CHECK_H
#define VC_BACKEND_1_EXT_HOST_THREAD_CHECK_H

#include "../vc_host.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VC_EXT_HOST_THREAD_CHECK "vc.host.thread-check/1"

typedef struct vc_host_thread_check {
  /* [any-thread] nonzero when called on the host's event-loop thread */
  int32_t(VC_CALL *is_loop_thread)(const vc_host_services *host);
} vc_host_thread_check;

#ifdef __cplusplus
}
#endif
#endif /* VC_BACKEND_1_EXT_HOST_THREAD_CHECK_H */
