// egress_firewall.h — the network switch of a desktop computer, which the agent inside it
// cannot undo.
//
// A desktop computer stays attached to its network (its desktop view is a published port that
// a disconnect would cut off), so "network off" is an egress filter in the computer's network
// namespace (desktop_image/egress-firewall: IPv4 and IPv6; loopback and replies pass, TCP is
// refused with a reset, the rest rejected). The computer never holds NET_ADMIN: the rules are
// installed by a short-lived helper container made from the computer's own image, sharing its
// network namespace and alone granted NET_ADMIN, then removed. Root and sudo inside the
// computer cannot change them.
//
// The wanted state lives outside the computer: a volume named
// kilntainer-<computer_id>.network-off exists while the network is off (nothing mounts it; it is
// a record the engine keeps, out of the agent's reach). A container restart gives the computer
// a fresh, open namespace, so every start, restart and attach installs the rules again from
// that record.
//
// EngineLoop thread only.
#pragma once

#include <set>
#include <string>

#include "container_calls.h"

namespace vc::container {

// "kilntainer-<computer_id>.network-off" (computer ids hold no dots, so no computer's own
// objects can collide with it).
std::string network_off_record_name(const std::string& computer_id);

// Whether the record says the network is off.
void read_network_blocked(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                          const std::string& computer_id, Callback<bool> done);

// The computer ids whose network is off, from one volume list call.
void list_network_blocked(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                          Callback<std::set<std::string>> done);

// Turns the network of the running desktop computer `container` (an inspect document) off or
// on: records the wanted state, then installs or removes the rules. A failure leaves the record
// as it was before and says what failed.
void set_egress_blocked(BackendContext& ctx, const std::string& computer_id,
                        const nlohmann::json& container, bool blocked, Callback<Done> done);

// Installs the rules again when the record says off (after a start or restart); yields whether
// the network is off.
void reapply_egress(BackendContext& ctx, const std::string& computer_id,
                    const nlohmann::json& container, Callback<bool> done);

// Writes the record alone, for a computer that is not running (its next start applies it).
void record_network_blocked(BackendContext& ctx, const std::string& computer_id, bool blocked,
                            Callback<Done> done);

// Removes the record (when the computer is deleted). A missing record is fine.
void forget_network_record(BackendContext& ctx, const std::string& computer_id,
                           Callback<Done> done);

}  // namespace vc::container
