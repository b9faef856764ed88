// Two host processes behind a round-robin proxy serve one set of computers to a client of the
// stateless 2026-07-28 revision (the official v2 TypeScript client, pinned), as an operator runs
// them behind a load balancer (docs/protocol.md, "Several host processes").
//
// Usage: node round_robin.mjs <host binary> [host arguments...]
// Starts the host twice over HTTP (the same backend arguments and computer id, one shared
// --request-state-key-file) and a proxy, written here, that hands each HTTP request to the
// next process in turn and streams its answer back. Then the client:
//   - sends its first two commands at once, while the computer does not exist yet: both
//     processes create it at the same moment, both commands must run, and one computer must
//     result;
//   - writes, reads and runs commands, every step landing on the other process than the last;
//   - creates a second computer and deletes it with a confirmation: the question comes from
//     one process (an input-required result with a sealed state), the answer goes to the
//     other, which must open the state and delete the computer;
//   - runs a long command as a task (the tasks extension, by hand: stateless_wire.mjs). Each
//     process has its own --task-id-prefix and the proxy sends tasks/* requests to the process
//     their Mcp-Name header (the task id) names, as docs/protocol.md tells an operator to: the
//     task is polled to its end, and the other process does not know it.
// Checks by independent means: the proxy's count per process, `docker ps`, `docker exec`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { checks, waitFor } from "./desktop_session.mjs";
import { startHttpHost } from "./http_host.mjs";
import { statelessCall } from "./stateless_wire.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node round_robin.mjs <host binary> [arguments...]");
  process.exit(2);
}
const { expect, error, report } = checks();
const computerId = process.env.COMPUTER_ID ?? "e2e-round-robin";
const extraId = `${computerId}-extra`;
const containerOf = (id) => `kilntainer-${id}`;
const removeComputers = () => {
  for (const id of [computerId, extraId]) spawnSync("docker", ["rm", "-f", containerOf(id)], { stdio: "ignore" });
};
removeComputers();

const scratch = mkdtempSync(join(tmpdir(), "vc-round-robin-"));
const keyFile = join(scratch, "request-state.key");
writeFileSync(keyFile, randomBytes(32), { mode: 0o600 });

// --- the two processes ----------------------------------------------------------------------
async function startHost(index) {
  const { host, url } = await startHttpHost(
    command, [...args, "--lifecycle-tools", "--request-state-key-file", keyFile, "--task-id-prefix", `p${index}`,
              "--state-dir", join(scratch, `state-${index}`)],
    { env: { ...process.env, COMPUTER_ID: computerId }, logPrefix: `[host ${index}] ` });
  return { host, url: new URL(url) };
}
const upstreams = [await startHost(0), await startHost(1)];

// --- the proxy: each request to the next process, the answer streamed back ------------------
let turn = 0;
const served = [0, 0];
const deleteRounds = [];  // for each computer_delete call: which process, and whether it carried a state
const taskRoutes = [];  // for each tasks/* request: the process its Mcp-Name named
const proxy = http.createServer((request, response) => {
  // tasks/* go to the process whose --task-id-prefix starts the task id; the rest in turn.
  const owner = /^p([01])-/.exec(request.headers["mcp-name"] ?? "");
  const routed = owner && (request.headers["mcp-method"] ?? "").startsWith("tasks/");
  const index = routed ? Number(owner[1]) : turn++ % upstreams.length;
  if (routed) taskRoutes.push(index);
  served[index] += 1;
  const target = upstreams[index].url;
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const body = Buffer.concat(chunks);
    const text = body.toString("utf8");
    if (text.includes('"computer_delete"')) {
      deleteRounds.push({ index, withState: text.includes('"requestState"') });
    }
    const headers = { ...request.headers, host: `${target.hostname}:${target.port}` };
    delete headers.origin;
    const forwarded = http.request({ host: target.hostname, port: target.port, path: request.url,
                                     method: request.method, headers }, (answer) => {
      response.writeHead(answer.statusCode, answer.headers);
      answer.pipe(response);
    });
    forwarded.on("error", (cause) => {
      response.writeHead(502);
      response.end(String(cause));
    });
    // A client that goes away cancels on the process that serves it.
    response.on("close", () => { if (!response.writableFinished) forwarded.destroy(); });
    forwarded.end(body);
  });
});
await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
const proxyUrl = new URL(`http://127.0.0.1:${proxy.address().port}/mcp`);

// --- the client ------------------------------------------------------------------------------
let questions = 0;
const client = new Client({ name: "vc-round-robin", version: "1.0.0" },
                          { versionNegotiation: { mode: { pin: "2026-07-28" }, probe: { timeoutMs: 10000 } },
                            capabilities: { elicitation: {} } });
client.setRequestHandler("elicitation/create", async (request) => {
  questions += 1;
  expect(/Delete computer/.test(request.params?.message ?? ""),
         `the confirmation names what it deletes (${request.params?.message})`);
  return { action: "accept", content: { confirm: true } };
});
const callOptions = { timeout: 600_000 };
const call = async (name, argumentsObject) => {
  const result = await client.callTool({ name, arguments: argumentsObject }, undefined, callOptions);
  return result.structuredContent ?? {};
};
const containers = (id) => spawnSync("docker", ["ps", "-a", "--filter", `name=^/${containerOf(id)}$`, "--format", "{{.ID}}"],
                                     { encoding: "utf8" }).stdout.trim().split("\n").filter(Boolean);

try {
  await client.connect(new StreamableHTTPClientTransport(proxyUrl));
  expect(client.getProtocolEra() === "modern", `the pinned client speaks 2026-07-28 (${client.getProtocolEra()})`);

  // Two commands at once while the computer does not exist: each process creates it.
  const [first, second] = await Promise.all([
    call("terminal_execute", { command: "echo first" }),
    call("terminal_execute", { command: "echo second" }),
  ]);
  expect(first.stdout === "first\n" && second.stdout === "second\n",
         `two commands sent at once to both processes both ran (${JSON.stringify([first, second]).slice(0, 600)})`);
  expect(containers(computerId).length === 1,
         `one computer came of it, not two (${containers(computerId).length} containers named ${containerOf(computerId)})`);

  // A scenario, each step on the other process than the last.
  const written = await call("write_file", { path: "/workspace/rr/note.txt", content: "written through the proxy\n" });
  expect(written.ok !== false, `write_file (${JSON.stringify(written).slice(0, 200)})`);
  const read = await call("read_file", { path: "/workspace/rr/note.txt" });
  expect(read.content === "written through the proxy\n", `read_file gives it back (${JSON.stringify(read.content)})`);
  const appended = await call("terminal_execute", { command: "echo appended >> /workspace/rr/note.txt; wc -l < /workspace/rr/note.txt" });
  expect(appended.stdout === "2\n", `a command on the other process sees the file (${JSON.stringify(appended.stdout)})`);
  const outside = spawnSync("docker", ["exec", containerOf(computerId), "cat", "/workspace/rr/note.txt"], { encoding: "utf8" });
  expect(outside.stdout === "written through the proxy\nappended\n",
         `docker exec reads both lines in the one computer (${JSON.stringify(outside.stdout)})`);
  for (let i = 0; i < 4; ++i) {
    const listed = await client.listTools();
    expect(listed.tools.some((tool) => tool.name === "terminal_execute"), `tools/list ${i + 1} answers`);
  }

  // A confirmation asked by one process and answered to the other.
  const created = await call("computer_create", { computer_id: extraId });
  expect(created.ok === true && containers(extraId).length === 1, `computer_create ${extraId} (${JSON.stringify(created).slice(0, 160)})`);
  const deleted = await call("computer_delete", { computer_id: extraId });
  expect(questions === 1, `the person was asked once (${questions})`);
  expect(deleted.deleted === true && containers(extraId).length === 0,
         `computer_delete went ahead once confirmed (${JSON.stringify(deleted)}, ${containers(extraId).length} left)`);
  const asked = deleteRounds.find((round) => !round.withState);
  const answered = deleteRounds.find((round) => round.withState);
  expect(asked && answered && asked.index !== answered.index,
         `the question came from one process and the answer went to the other (${JSON.stringify(deleteRounds)})`);

  // A task, polled through the proxy: every tasks/get reaches the process that runs it.
  const started = (await statelessCall(proxyUrl, "tools/call", {
    name: "terminal_execute", arguments: { command: "sleep 1; echo from-a-task", timeout: 300 },
  })).result;
  const ownerIndex = Number(/^p([01])-/.exec(started.taskId ?? "")?.[1]);
  expect(started.resultType === "task" && (ownerIndex === 0 || ownerIndex === 1),
         `a long command is a task named after its process (${started.taskId})`);
  const ended = await waitFor(async () => {
    const task = (await statelessCall(proxyUrl, "tasks/get", { taskId: started.taskId })).result;
    return task && task.status !== "working" ? task : null;
  }, 60, "the task to end");
  expect(ended.status === "completed" && ended.result?.structuredContent?.stdout === "from-a-task\n",
         `the task completed with its output, polled through the proxy (${ended.status})`);
  expect(taskRoutes.length >= 2 && taskRoutes.every((index) => index === ownerIndex),
         `every tasks/get went to the task's process (${JSON.stringify(taskRoutes)})`);
  const stranger = await statelessCall(upstreams[1 - ownerIndex].url, "tasks/get", { taskId: started.taskId });
  expect(stranger.error?.code === -32602, "the other process does not know the task (why the route is needed)");

  expect(served[0] >= 6 && served[1] >= 6, `both processes served the client (${served.join(" and ")} requests)`);
} catch (cause) {
  error(cause);
} finally {
  await client.close().catch(() => {});
  proxy.close();
  for (const { host } of upstreams) host.kill("SIGTERM");
  removeComputers();
  rmSync(scratch, { recursive: true, force: true });
}
report();
