/* layout_1_1.c — locks the binary layout of what ABI 1.1 appended.
 *
 * The 1.0 layout stays locked by layout_1_0.c; this file adds the fields of 1.1 (offsets and
 * sizes, LP64) and the new sizes of the structs they grew, plus the constants of 1.1. Lines
 * here are never removed; a struct growing again in a later minor gets the same treatment as
 * described in layout_1_0.c.
 */
#include <vc-backend-1/vc_sdk.h>

#define VC_LOCK_SIZE(type, size, align)                                    \
  _Static_assert(sizeof(type) == (size), "sizeof(" #type ") changed");     \
  _Static_assert(_Alignof(type) == (align), "_Alignof(" #type ") changed")

#define VC_LOCK_FIELD(type, field, offset, size)                                        \
  _Static_assert(offsetof(type, field) == (offset), #type "." #field " moved");         \
  _Static_assert(sizeof(((type *)0)->field) == (size), #type "." #field " was resized")

/* --- constants ------------------------------------------------------------------------------ */
_Static_assert(VC_ABI_MINOR >= 1u, "these headers are ABI 1.1 or later");

/* --- struct layouts (LP64) ------------------------------------------------------------------- */
#if defined(__LP64__) || defined(_LP64)

/* vc_op: the host's id of the op, right after the 1.0 fields. */
VC_LOCK_FIELD(vc_op, id, 40, 8);
VC_LOCK_SIZE(vc_op, 48, 8);

#endif /* LP64 */

int main(void) { return 0; }
