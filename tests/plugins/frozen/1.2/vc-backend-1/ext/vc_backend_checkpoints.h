/* ext/vc_backend_checkpoints.h — backend extension "vc.backend.checkpoints/1" (ABI 1.2).
 *
 * Checkpoints of a computer's files: the agent's undo, and forks. A backend that can save a
 * computer's filesystem under a name and bring it back returns this table from
 *   backend->ops->get_extension(backend, VC_EXT_BACKEND_CHECKPOINTS);
 * and NULL when it cannot (the host then offers no checkpoint tools).
 *
 * Five operations, each with the vc_async_op_fn contract of vc_backend.h (an accepted op
 * completes exactly once; cancel() may come at any time). Requests and results are JSON
 * documents with schemas in schemas/<op>.request.json and .result.json; a checkpoint is
 * schemas/checkpoint_info.json:
 *   {"name", "computer_id", "created" (RFC 3339, UTC), "size_bytes" (what the checkpoint adds
 *    to the image the computer was made from), "processes" (false: files only),
 *    "desktop_environment" (whether Xfce was wanted when it was taken)}
 *
 *   create_checkpoint   {"computer_id","name"}
 *                       -> {"checkpoint": checkpoint_info, "computer": computer_info}
 *   list_checkpoints    {"computer_id"} -> {"computer_id", "checkpoints": [checkpoint_info...]}
 *                       oldest first
 *   restore_checkpoint  {"computer_id","name"}
 *                       -> {"checkpoint": checkpoint_info, "computer": computer_info}
 *                       The computer keeps its id, settings, desktop mode, desktop secret and
 *                       network state; only its files go back, and it runs afterwards. A
 *                       failure part-way leaves the computer as it was, or restored; never gone.
 *   fork_checkpoint     {"computer_id","new_computer_id","name" (optional)}
 *                       -> {"checkpoint": checkpoint_info or null, "computer": computer_info}
 *                       A new computer from the named checkpoint, or from the computer's
 *                       current files when no name is given; with a secret of its own, network
 *                       access on, and the desktop mode its files had. The source is untouched.
 *   delete_checkpoint   {"computer_id","name"} -> {"computer_id","name","deleted": true}
 *
 * Names: 1-63 characters of letters, digits, '.', '_' and '-', starting with a letter or
 * digit (cpp/checkpoint_name.h). Failures use the usual statuses:
 *   VC_E_INVALID_ARGUMENT  a malformed name or request; nothing was done
 *   VC_E_NOT_FOUND         no such computer, or no checkpoint of that name; nothing was done
 *   VC_E_ALREADY_EXISTS    a checkpoint of that name exists (delete it first to replace it),
 *                          or the fork's new_computer_id is taken
 *   VC_E_BUSY              the checkpoint is in use and cannot be deleted now
 *   VC_E_FAILED            with error details code "<plugin>.checkpoint_limit": the computer
 *                          has as many checkpoints as the backend allows (delete one first)
 * Removing a computer deletes its checkpoints; a factory reset keeps them. The checkpoint
 * operations of one computer run in order with its other lifecycle operations.
 *
 * A published extension struct is frozen: a change means a new "/<rev>" id.
 */
#ifndef VC_BACKEND_1_EXT_BACKEND_CHECKPOINTS_H
#define VC_BACKEND_1_EXT_BACKEND_CHECKPOINTS_H

#include "../vc_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VC_EXT_BACKEND_CHECKPOINTS "vc.backend.checkpoints/1"

typedef struct vc_backend_checkpoints {
  uint32_t struct_size;
  uint32_t reserved0;
  /* Each [loop-thread], must not block; the vc_async_op_fn contract. */
  vc_async_op_fn create_checkpoint;
  vc_async_op_fn list_checkpoints;
  vc_async_op_fn restore_checkpoint;
  vc_async_op_fn fork_checkpoint;
  vc_async_op_fn delete_checkpoint;
} vc_backend_checkpoints;

#ifdef __cplusplus
}
#endif
#endif /* VC_BACKEND_1_EXT_BACKEND_CHECKPOINTS_H */
