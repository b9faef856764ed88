// http_load.mjs — load on the Streamable HTTP transport (docs/benchmarks.md). Not a test: it
// measures and reports, and exits non-zero only when a call goes unanswered or answers with
// another call's output.
//
//   node http_load.mjs <host binary> <plugin dir> [--sessions 50] [--calls 20] [--idle 500]
//
// Starts the host over HTTP with the Docker backend, then
//  1. N sessions run M terminal_execute calls each, all sessions at once (the computer runs
//     one command at a time, as in the original): every answer must carry its own output;
//  2. K more sessions are opened and left idle, each on a keep-alive connection of its own.
// Prints a Markdown table: wall time, call latency, and the host's RSS (VmRSS / VmHWM) after
// each phase.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { postMcp } from "./mcp_http.mjs";

const [hostBinary, pluginDir, ...rest] = process.argv.slice(2);
const option = (name, fallback) => {
  const i = rest.indexOf(name);
  return i >= 0 ? Number(rest[i + 1]) : fallback;
};
const sessions = option("--sessions", 50);
const calls = option("--calls", 20);
const idle = option("--idle", 500);
const computerId = `bench-http-${process.pid}`;

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))[1]);
  return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
}

const host = spawn(hostBinary, ["--backend", "docker", "--plugin-dir", pluginDir, "--transport",
                                "http", "--port", "0", "--image", "debian:bookworm-slim"],
                   { env: { ...process.env, COMPUTER_ID: computerId }, stdio: ["ignore", "ignore", "pipe"] });
let log = "";
const url = await new Promise((resolve, reject) => {
  host.stderr.on("data", (chunk) => {
    log += chunk;
    const match = log.match(/serving MCP over HTTP on (http:\/\/[^\s]+\/mcp)/);
    if (match) resolve(new URL(match[1]));
  });
  host.on("exit", (code) => reject(new Error(`host exited ${code}: ${log}`)));
});

// One JSON-RPC message over one agent (one keep-alive connection per agent).
const post = (agent, message, session) => postMcp(url, agent, message, { session });

async function openSession(agent) {
  const init = await post(agent, { jsonrpc: "2.0", id: 0, method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "load", version: "1" } } });
  await post(agent, { jsonrpc: "2.0", method: "notifications/initialized" }, init.session);
  return init.session;
}

const median = (values) => { const s = [...values].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const p90 = (values) => { const s = [...values].sort((a, b) => a - b); return s[Math.floor(s.length * 0.9)]; };

let errors = 0;
const warm = new http.Agent({ keepAlive: true, maxSockets: 1 });
const warmSession = await openSession(warm);
await post(warm, { jsonrpc: "2.0", id: 1, method: "tools/call",
                   params: { name: "terminal_execute", arguments: { command: "true" } } }, warmSession);
const before = memory(host.pid);

// Phase 1: N sessions x M calls, concurrently.
const latencies = [];
const started = performance.now();
await Promise.all(Array.from({ length: sessions }, async (_, s) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const session = await openSession(agent);
  for (let c = 0; c < calls; c++) {
    const expected = `s${s}-c${c}`;
    const t0 = performance.now();
    const reply = await post(agent, { jsonrpc: "2.0", id: c + 1, method: "tools/call",
      params: { name: "terminal_execute", arguments: { command: `echo ${expected}` } } }, session);
    latencies.push(performance.now() - t0);
    const result = reply.messages.find((m) => m.id === c + 1);
    if (result?.result?.structuredContent?.stdout !== `${expected}\n`) {
      errors++;
      console.error(`session ${s} call ${c}: unexpected answer ${JSON.stringify(result)}`);
    }
  }
}));
const wall = performance.now() - started;
const busy = memory(host.pid);

// Phase 2: idle sessions, each holding its own keep-alive connection.
const idleAgents = [];
for (let i = 0; i < idle; i++) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  idleAgents.push(agent);
  await openSession(agent);
}
await new Promise((resolve) => setTimeout(resolve, 1000));
const idleMemory = memory(host.pid);

host.kill("SIGTERM");
await new Promise((resolve) => host.on("exit", resolve));
idleAgents.forEach((agent) => agent.destroy());
spawnSync("docker", ["rm", "-f", `kilntainer-${computerId}`], { stdio: "ignore" });

const mib = (kib) => (kib / 1024).toFixed(1);
console.log(`| measure | value |`);
console.log(`|---|---|`);
console.log(`| calls | ${sessions} sessions x ${calls} = ${sessions * calls}, all answered with their own output: ${errors === 0 ? "yes" : `NO (${errors} wrong)`} |`);
console.log(`| wall time | ${(wall / 1000).toFixed(1)} s (${((sessions * calls) / (wall / 1000)).toFixed(1)} calls/s; the computer runs one command at a time) |`);
console.log(`| call latency under load, median / p90 | ${median(latencies).toFixed(0)} / ${p90(latencies).toFixed(0)} ms (queueing behind the other sessions' commands) |`);
console.log(`| host RSS, 1 warm session | ${mib(before.rss)} MiB |`);
console.log(`| host RSS after the ${sessions}-session run (VmRSS / peak VmHWM) | ${mib(busy.rss)} / ${mib(busy.hwm)} MiB |`);
console.log(`| host RSS with ${idle} more idle sessions on ${idle} keep-alive connections (VmRSS / VmHWM) | ${mib(idleMemory.rss)} / ${mib(idleMemory.hwm)} MiB |`);
process.exit(errors === 0 ? 0 : 1);
