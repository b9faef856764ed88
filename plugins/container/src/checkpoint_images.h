// checkpoint_images.h — checkpoints as engine images: naming, labels, and the engine calls
// that make, find, tag and delete them.
//
// A checkpoint of computer <id> named <name> is the image
//   localhost/mcp-virtual-computer-checkpoint/<id>:<name>
// committed from the computer's container (its writable layer on top of the image it was made
// from), labelled with the computer, the name, when it was taken and the Xfce mode wanted
// then. It never carries the desktop secret, and its "kilntainers" label says "checkpoint", so
// nothing mistakes it for a computer. A container made from a checkpoint (a restore, a fork)
// is made from a tag of its own, its base,
//   localhost/mcp-virtual-computer-base/<id>:<stamp>
// named in the container's base-image label (labels::kBaseImage) and deleted with the container; so deleting the
// checkpoint only removes its name and never meets "image in use".
//
// EngineLoop thread only (the callbacks run there too).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend_context.h"
#include "cancel_scope.h"
#include "container_calls.h"

namespace vc::container {

namespace checkpoint_labels {
inline constexpr const char* kOf = "mcp-virtual-computer.checkpoint-of";            // computer id
inline constexpr const char* kName = "mcp-virtual-computer.checkpoint-name";        // its name
inline constexpr const char* kCreated = "mcp-virtual-computer.checkpoint-created";  // RFC 3339
inline constexpr const char* kDesktop = "mcp-virtual-computer.checkpoint-desktop";  // "true"
}  // namespace checkpoint_labels

// "localhost/mcp-virtual-computer-checkpoint/<id>" and ":<name>" joined.
std::string checkpoint_repository(const std::string& computer_id);
std::string checkpoint_reference(const std::string& computer_id, const std::string& name);
// "localhost/mcp-virtual-computer-base/<id>"; the tag is a fresh stamp per container.
std::string base_repository(const std::string& computer_id);

// One checkpoint as the engine lists it.
struct CheckpointImage {
  std::string image_id;
  std::string name;
  std::string computer_id;
  std::string created;  // RFC 3339
  bool desktop_environment = false;
  std::int64_t size_bytes = 0;  // filled in by layer_size()
};

// The checkpoint_info document (schemas/checkpoint_info.json).
nlohmann::json checkpoint_info(const CheckpointImage& image);

// What to commit: the labels and environment the commit changes.
struct CommitRequest {
  std::string container;       // the container's name
  std::string repository;      // checkpoint_repository() or base_repository()
  std::string tag;
  std::string computer_id;     // checkpoint-of label; empty for a fork's own base (not listed)
  std::string name;            // checkpoint-name label
  std::string created;         // RFC 3339
  bool desktop_environment = false;
};

// POST /commit (the container paused meanwhile). Yields the new image's id.
void commit_checkpoint(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                       const CommitRequest& request, Callback<std::string> done);

// GET /images/json filtered by the checkpoint-of label: the computer's checkpoints, oldest
// first (sizes not filled in).
void list_checkpoint_images(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                            const std::string& computer_id,
                            Callback<std::vector<CheckpointImage>> done);

// GET /images/{reference}/json of the checkpoint `name` of `computer_id`: nullopt when there is
// none (or the image under that name is not that computer's checkpoint).
void find_checkpoint(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                     const std::string& computer_id, const std::string& name,
                     Callback<std::optional<CheckpointImage>> done);

// GET /images/{id}/history: the size of the image's top layer (what the commit added).
void layer_size(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                const std::string& image_id, Callback<std::int64_t> done);

// POST /images/{image}/tag?repo=&tag=.
void tag_image(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
               const std::string& image, const std::string& repository, const std::string& tag,
               Callback<Done> done);

// DELETE /images/{reference} without force: removes that name, and the image once no name and
// no container holds it. Yields false when there was no such image. An image still in use
// (409) fails with VC_E_BUSY.
void delete_image(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                  const std::string& reference, Callback<bool> done);

// Deletes the references one after another; failures are logged, never reported (cleanup).
void delete_images_quietly(BackendContext& ctx, std::vector<std::string> references,
                           std::function<void()> done);

// Deletes every checkpoint of `computer_id` and the references in `also` (a removed
// container's base tag); failures are logged. For a computer's removal.
void delete_checkpoints_of(BackendContext& ctx, const std::string& computer_id,
                           std::vector<std::string> also, std::function<void()> done);

}  // namespace vc::container
