// The tasks extension (io.modelcontextprotocol/tasks) over Streamable HTTP against a real
// Docker computer, as a 2026-07-28 client that declares the extension drives it: raw JSON-RPC
// with the revision's envelope and headers (the official clients do not speak the extension
// yet; the conformance suite covers its wire shapes).
//
// Usage: node tasks_docker.mjs <host binary> [host arguments...]
//   - a command with a long timeout answers at once with a task; a listen on the task gets its
//     status notifications; polling tasks/get ends in `completed` with the command's output,
//     and the file it wrote is in the container (docker exec);
//   - tasks/cancel of a running `sleep` settles the task as cancelled and the process is gone
//     from the container (docker exec, /proc), as notifications/cancelled would;
//   - the same command from a request that does not declare the extension is a plain result;
//     tasks/get from such a request is refused with -32021;
//   - computer_create goes on as a task and the container exists when it completes.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checks, waitFor } from "./desktop_session.mjs";
import { startHttpHost } from "./http_host.mjs";
import { TASKS_EXTENSION as TASKS, statelessCall, statelessListen } from "./stateless_wire.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node tasks_docker.mjs <host binary> [arguments...]");
  process.exit(2);
}
const { expect, error, report } = checks();
const computerId = process.env.COMPUTER_ID ?? "e2e-tasks";
const createdId = `${computerId}-created`;
const containerOf = (id) => `kilntainer-${id}`;
const removeComputers = () => {
  for (const id of [computerId, createdId]) spawnSync("docker", ["rm", "-f", containerOf(id)], { stdio: "ignore" });
};
const dockerExec = (script) =>
  spawnSync("docker", ["exec", containerOf(computerId), "sh", "-c", script], { encoding: "utf8" });
// Whether a process whose command line is exactly `line` runs in the computer (the slim image
// has no pgrep: read /proc).
const runsInContainer = (line) =>
  dockerExec(`for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done | grep -qx '${line} '`).status === 0;
removeComputers();
const scratch = mkdtempSync(join(tmpdir(), "vc-tasks-"));

const { host, url } = await startHttpHost(command, [...args, "--lifecycle-tools", "--state-dir", join(scratch, "state")],
                                          { env: { ...process.env, COMPUTER_ID: computerId }, logPrefix: "[host] " });

const call = (method, params, options) => statelessCall(url, method, params, options);
const listen = (filter) => statelessListen(url, filter);
async function settle(taskId, seconds, what) {
  return waitFor(async () => {
    const task = (await call("tasks/get", { taskId })).result;
    return ["completed", "failed", "cancelled"].includes(task.status) ? task : null;
  }, seconds, what);
}

try {
  const discovered = (await call("server/discover", {}, { tasks: false })).result;
  expect(discovered.capabilities?.extensions?.[TASKS] !== undefined, "server/discover offers the tasks extension");

  // The computer exists before the tasks below, so they time the commands alone.
  const warm = (await call("tools/call", { name: "terminal_execute", arguments: { command: "true" } })).result;
  expect(warm.resultType === "complete" && warm.structuredContent?.exit_code === 0,
         "a command with the default timeout stays a plain request");

  // --- a long command as a task, followed by listening and polling ---------------------------
  const created = (await call("tools/call", {
    name: "terminal_execute",
    arguments: { command: "sleep 2; echo task-wrote-this > /root/task-file; echo finished", timeout: 300 },
  })).result;
  expect(created.resultType === "task" && typeof created.taskId === "string",
         `a command with a 300 s timeout answers with a task (${created.resultType})`);
  expect(created.status === "working" && created.ttlMs > 0 && created.pollIntervalMs > 0,
         "the task is working, with its ttl and poll interval");
  const listener = listen({ taskIds: [created.taskId] });
  const finished = await settle(created.taskId, 60, "the command's task to end");
  expect(finished.status === "completed", `the task completed (${finished.status})`);
  expect(finished.result?.structuredContent?.stdout?.trim() === "finished",
         `tasks/get inlines the command's output (${JSON.stringify(finished.result?.structuredContent?.stdout)})`);
  const written = dockerExec("cat /root/task-file");
  expect(written.stdout.trim() === "task-wrote-this", "the file the task's command wrote is in the container");
  await waitFor(() => listener.notifications.some((n) => n.method === "notifications/tasks" &&
                                                        n.params?.status === "completed"), 10,
                "the listen stream to report the completion");
  await listener.close();
  const acknowledged = listener.notifications.find((n) => n.method === "notifications/subscriptions/acknowledged");
  expect(JSON.stringify(acknowledged?.params?.notifications?.taskIds) === JSON.stringify([created.taskId]),
         "the listen acknowledged the task it follows");
  const completion = listener.notifications.find((n) => n.method === "notifications/tasks" && n.params.status === "completed");
  expect(completion?.params?.taskId === created.taskId && completion.params.result?.structuredContent?.exit_code === 0,
         "notifications/tasks carries the finished task with its result");

  // --- tasks/cancel kills the command ---------------------------------------------------------
  const sleeper = (await call("tools/call", {
    name: "terminal_execute", arguments: { command: "sleep 611", timeout: 900 },
  })).result;
  expect(sleeper.resultType === "task", "a second long command is a task too");
  await waitFor(() => runsInContainer("sleep 611"), 20, "the sleep to run in the container");
  const ack = (await call("tasks/cancel", { taskId: sleeper.taskId })).result;
  expect(ack.resultType === "complete" && !("status" in ack), "tasks/cancel answers with an empty ack");
  const cancelled = (await call("tasks/get", { taskId: sleeper.taskId })).result;
  expect(cancelled.status === "cancelled", `the task is cancelled (${cancelled.status})`);
  const gone = await waitFor(() => !runsInContainer("sleep 611"), 20,
                             "the cancelled command to be killed").catch(() => false);
  expect(gone, "the cancelled command no longer runs in the container (docker exec, /proc)");

  // --- without the extension ------------------------------------------------------------------
  const plain = (await call("tools/call", {
    name: "terminal_execute", arguments: { command: "echo plain", timeout: 300 },
  }, { tasks: false })).result;
  expect(plain.resultType === "complete" && plain.structuredContent?.stdout?.trim() === "plain",
         "the same long timeout from a client without the extension is a plain result");
  const refused = await call("tasks/get", { taskId: created.taskId }, { tasks: false });
  expect(refused.error?.code === -32021, `tasks/get without the extension is refused with -32021 (${refused.error?.code})`);
  const unknown = await call("tasks/get", { taskId: "no-such-task" });
  expect(unknown.error?.code === -32602, "an unknown task id is -32602");

  // --- computer_create as a task --------------------------------------------------------------
  const creating = (await call("tools/call", { name: "computer_create", arguments: { computer_id: createdId } })).result;
  expect(creating.resultType === "task", "computer_create answers with a task");
  const made = await settle(creating.taskId, 120, "the new computer's task to end");
  expect(made.status === "completed" && made.result?.isError === false,
         `the computer_create task completed (${made.status}: ${JSON.stringify(made.result?.content?.[0]?.text ?? made.error)})`);
  const inspected = spawnSync("docker", ["inspect", "-f", "{{.State.Running}}", containerOf(createdId)], { encoding: "utf8" });
  expect(inspected.stdout.trim() === "true", "the created computer's container runs (docker inspect)");
} catch (failure) {
  error(failure);
} finally {
  host.kill("SIGTERM");
  await new Promise((resolve) => host.once("exit", resolve));
  removeComputers();
  rmSync(scratch, { recursive: true, force: true });
  report();
}
