/* vc_abi.h — ABI version, export macros and struct-size rules of the backend plugin ABI.
 *
 * Part of the mcp-virtual-computer backend SDK, ABI major 1. C11; no C++ types.
 *
 * Compatibility rules (normative, see docs/plugin-authoring.md):
 *  - Every struct that may grow starts with `uint32_t struct_size`, set by its producer to
 *    sizeof() as compiled. Fields are only ever appended within a major.
 *  - A consumer copies min(struct_size, sizeof) bytes into a zeroed local copy; a zero or NULL
 *    member means "absent". Check optional fields with VC_HAS_FIELD().
 *  - Fixed-width integers only; no enums, bitfields or `long` in public structs.
 *  - Optional feature groups are looked up by versioned string id ("vc.<name>/<rev>").
 *
 * Threading tags, written on every function of the SDK (defined here, once):
 *   [loop-thread]  called only on the host's event-loop thread (the thread that loaded the
 *                  plugin); must not block.
 *   [any-thread]   may be called from any thread, concurrently; never blocks.
 *   [worker]       (the C++ layer) only on a plugin's own thread, which may block.
 */
#ifndef VC_BACKEND_1_ABI_H
#define VC_BACKEND_1_ABI_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#  define VC_EXPORT __declspec(dllexport)
#  define VC_CALL __cdecl
#else
#  define VC_EXPORT __attribute__((visibility("default")))
#  define VC_CALL
#endif

#ifdef __cplusplus
#  define VC_EXTERN_C extern "C"
#else
#  define VC_EXTERN_C
#endif

/* The major changes the entry symbol's name; minors only append. What each minor added:
 *   1.1  vc_op.id; the create request's "adopt_existing"; an op function answering an error
 *        is deprecated (accept the op and complete it at once with a message instead).
 *   1.2  the checkpoints extension (ext/vc_backend_checkpoints.h).
 *   1.3  the processes extension (ext/vc_backend_processes.h); the create request's and
 *        computer info's optional "mounts" (host folders mounted into the computer). */
#define VC_ABI_MAJOR 1u
#define VC_ABI_MINOR 3u

/* Bytes "VCB1" read as a little-endian uint32. */
#define VC_DESCRIPTOR_MAGIC 0x31424356u

/* The one symbol a plugin exports. The ABI major is part of its name. */
#define VC_ENTRY_SYMBOL "vc_plugin_entry_v1"

/* True when `field` lies inside what the producer of *ptr compiled. Usable from C and from C++
 * (no old-style casts there). */
#ifdef __cplusplus
#  define VC_ABI_NULL_ nullptr
#  define VC_ABI_SIZE_T_(value) static_cast<size_t>(value)
#  define VC_ABI_FIELD_SIZE_(type, field) sizeof(type::field)
#else
#  define VC_ABI_NULL_ NULL
#  define VC_ABI_SIZE_T_(value) ((size_t)(value))
#  define VC_ABI_FIELD_SIZE_(type, field) sizeof(((type *)0)->field)
#endif
#define VC_HAS_FIELD(ptr, type, field)                     \
  ((ptr) != VC_ABI_NULL_ &&                                \
   VC_ABI_SIZE_T_((ptr)->struct_size) >= offsetof(type, field) + VC_ABI_FIELD_SIZE_(type, field))

#endif /* VC_BACKEND_1_ABI_H */
