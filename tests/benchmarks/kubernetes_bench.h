// kubernetes_bench.h — the Kubernetes rows of the exec benchmark: the host with
// `--backend kubernetes` and the plugin through the C ABI, each against kubectl doing the same
// work on the same local cluster, in a namespace the run creates and deletes.
//
// Rows (each MCP or plugin row alternates with its kubectl counterpart in one run):
//   exec     terminal_execute of `true` on a long-lived host with a warm computer, through the
//            exec agent (the default) and, on a host with `--exec-agent off` and a computer of
//            its own, through one API exec per command; and the plugin's exec op with the agent
//            through the C ABI; against `kubectl exec <pod> -c computer -- true`;
//   inspect  the plugin's `list` op against `kubectl get pod <pod> -o json` and against kubectl
//            listing what the plugin lists (pods, claims and network policies by label);
//   create   a new computer to its first `true` — through a new host with the agent and with
//            `--exec-agent off`, and through the plugin's create and exec ops — against
//            `kubectl create -f` of the same claim and pod,
//            `kubectl wait` for the pod to be Ready and `kubectl exec … true`;
//   restart  computer_restart over MCP against `kubectl delete pod` + `kubectl create -f` +
//            `kubectl wait` of the copy's pod, each alone and up to the first command that runs
//            afterwards (tried again every 200 ms);
//   reset    computer_factory_reset over MCP against the same for the copy's pod and claim.
// Prints the Markdown table and the host's memory.
//
// Single-threaded; runs its commands one at a time.
#pragma once

#include "bench_common.h"

namespace vc::bench {

// Measures every Kubernetes row and prints the table; exits through die() on a failure.
void run_kubernetes_benchmark(const Settings& settings);

}  // namespace vc::bench
