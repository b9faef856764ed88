/* layout_1_3.c — locks the binary layout of what ABI 1.3 added: the processes extension.
 *
 * The layouts of 1.0, 1.1 and 1.2 stay locked by layout_1_0.c, layout_1_1.c and layout_1_2.c.
 * Lines here are never removed; a later minor that grows one of these structs locks the new
 * fields and size in a file of its own (offsets and sizes for LP64).
 */
#include <string.h>

#include <vc-backend-1/vc_sdk.h>

#define VC_LOCK_SIZE(type, size, align)                                    \
  _Static_assert(sizeof(type) == (size), "sizeof(" #type ") changed");     \
  _Static_assert(_Alignof(type) == (align), "_Alignof(" #type ") changed")

#define VC_LOCK_FIELD(type, field, offset, size)                                        \
  _Static_assert(offsetof(type, field) == (offset), #type "." #field " moved");         \
  _Static_assert(sizeof(((type *)0)->field) == (size), #type "." #field " was resized")

/* --- constants ------------------------------------------------------------------------------ */
_Static_assert(VC_ABI_MINOR >= 3u, "these headers are ABI 1.3 or later");

/* --- struct layouts (LP64) ------------------------------------------------------------------- */
#if defined(__LP64__) || defined(_LP64)

/* vc_backend_processes: the extension table of "vc.backend.processes/1". */
VC_LOCK_SIZE(vc_backend_processes, 48, 8);
VC_LOCK_FIELD(vc_backend_processes, struct_size, 0, 4);
VC_LOCK_FIELD(vc_backend_processes, reserved0, 4, 4);
VC_LOCK_FIELD(vc_backend_processes, start_process, 8, 8);
VC_LOCK_FIELD(vc_backend_processes, read_process, 16, 8);
VC_LOCK_FIELD(vc_backend_processes, write_process, 24, 8);
VC_LOCK_FIELD(vc_backend_processes, kill_process, 32, 8);
VC_LOCK_FIELD(vc_backend_processes, list_processes, 40, 8);

#endif /* LP64 */

/* The extension id is part of the ABI: a host looks it up by these exact bytes. */
int main(void) { return strcmp(VC_EXT_BACKEND_PROCESSES, "vc.backend.processes/1") == 0 ? 0 : 1; }
