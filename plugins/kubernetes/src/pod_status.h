// pod_status.h — what a computer's Pod, as the API returns it, says about the computer.
//
// The backend reads pods it lists, gets and watches; these functions turn one into:
//  - PodView: the computer's identity and settings (from the labels and annotations
//    computer_objects.h writes) and its state in the SDK's vocabulary;
//  - a start blocker: why a pod that is not running will not run without help — unschedulable
//    (the scheduler's own words), an image that cannot be pulled, the claim's seeding failed, a
//    container that keeps crashing — so that create and attach report it at once instead of
//    waiting out their deadline;
//  - a death: how a computer that ran has stopped (its container's exit code and reason, the
//    pod evicted or deleted), for wait_for_death.
//
// Input is untrusted JSON (a server's answer, or what a user's pod overrides made): every field
// may be missing or of the wrong type, and nothing here throws or trusts sizes — the texts taken
// from the pod are cut to a few hundred bytes. Pure functions; any thread.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace vc::kubernetes {

struct PodView {
  std::string name;              // metadata.name
  std::string uid;               // metadata.uid
  std::string resource_version;  // metadata.resourceVersion
  std::string computer_id;       // the kilntainers.computer-id label; empty when not ours
  bool owned = false;            // carries the kilntainers=true label
  bool temporary = false;
  bool desktop_mode = false;     // the desktop mode label: Xfce wanted on
  bool desktop_capable = false;
  std::string desktop_token;     // the computer container's VC_DESKTOP_TOKEN (desktop-capable)
  std::string image;             // the image annotation, else the computer container's image
  std::string workspace;         // the workspace annotation: commands' default directory
  std::string created_at;        // metadata.creationTimestamp (RFC 3339), may be empty
  std::string phase;             // status.phase: Pending, Running, Succeeded, Failed, Unknown
  bool deleting = false;         // metadata.deletionTimestamp is set
  bool computer_ready = false;   // the "computer" container is running and ready
  bool guard_running = false;    // the "network-guard" container is running
  // The SDK's word: created (pending), running, restarting (a container restarts), stopped
  // (being deleted, or succeeded), dead (failed).
  std::string state;
};

PodView read_pod(const nlohmann::json& pod);

// Why the pod will not reach Running without someone acting, as a sentence naming the pod; empty
// while it may still start (being scheduled, pulling, initialising, starting).
//   "The pod kilntainer-a cannot be scheduled: 0/1 nodes are available: 1 Insufficient memory."
//   "The pod kilntainer-a cannot start: its image \"x:1\" cannot be pulled (ErrImageNeverPull:
//    Container image \"x:1\" is not present with pull policy of Never)."
std::string pod_start_blocker(const nlohmann::json& pod);

// True for what the scheduler says while a pod's claim is still being provisioned (it retries by
// itself): not a blocker.
bool is_waiting_for_claim(const std::string& scheduler_message);

// What a pod that is not running yet waits for, as a phrase for a timeout's sentence ("not
// scheduled yet: …", "its container computer is waiting (ContainerCreating)"); may be empty.
std::string pod_waiting_note(const nlohmann::json& pod);

struct PodDeath {
  std::optional<int> exit_code;  // the computer container's, when it terminated
  std::string reason;            // a sentence: "the computer's container exited with code 137
                                 // (OOMKilled)", "the pod was deleted", "the pod was evicted: …"
};

// How the computer has stopped, or nothing while it runs (or has not started yet).
std::optional<PodDeath> pod_death(const nlohmann::json& pod);

}  // namespace vc::kubernetes
