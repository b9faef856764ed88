// era_bench.mjs — what a request costs in each era of MCP (docs/benchmarks.md, "Two eras").
// Not a test: it measures and reports, and exits non-zero only when an answer is wrong.
//
//   node era_bench.mjs <host binary> <plugin dir> [--requests 500] [--rate 500] [--seconds 60]
//                      [--churn-seconds 60]
//
// Starts the host with the Docker backend (debian:bookworm-slim) over stdio and over HTTP and,
// for each transport and era (2025-11-25 in a session; 2026-07-28 with its envelope on every
// request), sends --requests requests one after another of tools/list and of tools/call
// terminal_execute `true`, and reports the median and 90th percentile latency. Then it holds
// --rate requests per second of stateless tools/list and tools/call over HTTP (half each) for
// --seconds and reports the host's RSS at the start, every 10 s and at the end. Last, for
// --churn-seconds, it churns what a 2026 client leaves behind: subscriptions/listen streams
// whose clients vanish (the socket destroyed a few ms after the request) and tasks (the tasks
// extension: a command with a long timeout, polled to its end), and reports the latency of a
// task's creation and of tasks/get, and the host's RSS and open file descriptors throughout.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import readline from "node:readline";
import { postMcp } from "./mcp_http.mjs";

const [hostBinary, pluginDir, ...rest] = process.argv.slice(2);
const option = (name, fallback) => {
  const i = rest.indexOf(name);
  return i >= 0 ? Number(rest[i + 1]) : fallback;
};
const requests = option("--requests", 500);
const rate = option("--rate", 500);
const seconds = option("--seconds", 60);
const churnSeconds = option("--churn-seconds", 60);
const computerId = `bench-era-${process.pid}`;
const hostArgs = ["--backend", "docker", "--plugin-dir", pluginDir, "--image", "debian:bookworm-slim"];

const kModern = "2026-07-28";
const envelope = { "io.modelcontextprotocol/protocolVersion": kModern,
                   "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, sampling: {} },
                   "io.modelcontextprotocol/clientInfo": { name: "era-bench", version: "1" } };
const listTools = (id, modern) => ({ jsonrpc: "2.0", id, method: "tools/list",
                                     params: modern ? { _meta: envelope } : {} });
const callTrue = (id, modern) => ({ jsonrpc: "2.0", id, method: "tools/call",
  params: { name: "terminal_execute", arguments: { command: "true" }, ...(modern ? { _meta: envelope } : {}) } });
const initialize = { jsonrpc: "2.0", id: 0, method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "era-bench", version: "1" } } };

function openFiles(pid) {
  return readdirSync(`/proc/${pid}/fd`).length;
}
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/VmRSS:\s+(\d+)/)[1]);
}
const percentile = (values, p) => { const s = [...values].sort((a, b) => a - b); return s[Math.floor(s.length * p)]; };
let wrong = 0;
function check(answer, method) {
  const result = answer?.result;
  const good = method === "tools/list" ? Array.isArray(result?.tools)
                                       : result?.structuredContent?.exit_code === 0;
  if (!good) { wrong += 1; if (wrong < 4) console.error("wrong answer:", JSON.stringify(answer).slice(0, 300)); }
}

// --- stdio -------------------------------------------------------------------------------
async function stdioRun() {
  const host = spawn(hostBinary, hostArgs, { env: { ...process.env, COMPUTER_ID: computerId },
                                             stdio: ["pipe", "pipe", "ignore"] });
  const waiting = new Map();
  readline.createInterface({ input: host.stdout }).on("line", (line) => {
    const message = JSON.parse(line);
    if (message.id !== undefined && waiting.has(message.id)) {
      waiting.get(message.id)(message);
      waiting.delete(message.id);
    }
  });
  const send = (message) => new Promise((resolve) => {
    waiting.set(message.id, resolve);
    host.stdin.write(JSON.stringify(message) + "\n");
  });
  await send(initialize);
  host.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  const rows = [];
  let id = 1;
  for (const modern of [false, true]) {
    for (const [method, make] of [["tools/list", listTools], ["tools/call", callTrue]]) {
      await send(make(id++, modern));  // warm
      const times = [];
      for (let i = 0; i < requests; ++i) {
        const started = process.hrtime.bigint();
        check(await send(make(id++, modern)), method);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      rows.push({ transport: "stdio", era: modern ? kModern : "2025-11-25", method, times });
    }
  }
  host.stdin.end();
  await new Promise((resolve) => host.on("exit", resolve));
  return rows;
}

// --- HTTP --------------------------------------------------------------------------------
async function startHttpHost() {
  const host = spawn(hostBinary, [...hostArgs, "--transport", "http", "--port", "0"],
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
  return { host, url };
}

// One message; a 2026 one (its params carry _meta) with the revision's headers.
async function post(url, agent, message, session) {
  const headers = {};
  if (message.params?._meta) {
    headers["mcp-protocol-version"] = kModern;
    headers["mcp-method"] = message.method;
    const named = message.params.name ?? message.params.taskId;
    if (named) headers["mcp-name"] = named;
  }
  const reply = await postMcp(url, agent, message, { session, headers });
  return { session: reply.session, answer: reply.messages.at(-1) };
}

async function httpRun() {
  const { host, url } = await startHttpHost();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const init = await post(url, agent, initialize);
  await post(url, agent, { jsonrpc: "2.0", method: "notifications/initialized" }, init.session);
  const rows = [];
  let id = 1;
  for (const modern of [false, true]) {
    const session = modern ? undefined : init.session;
    for (const [method, make] of [["tools/list", listTools], ["tools/call", callTrue]]) {
      await post(url, agent, make(id++, modern), session);
      const times = [];
      for (let i = 0; i < requests; ++i) {
        const started = process.hrtime.bigint();
        check((await post(url, agent, make(id++, modern), session)).answer, method);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      rows.push({ transport: "HTTP", era: modern ? kModern : "2025-11-25", method, times });
    }
  }

  // Sustained stateless load: `rate` requests per second, half tools/list, half tools/call.
  const samples = [{ at: 0, rss: memory(host.pid) }];
  const interval = 1000 / rate;
  let sent = 0;
  let answered = 0;
  const started = Date.now();
  await new Promise((resolve) => {
    const tick = setInterval(() => {
      const elapsed = Date.now() - started;
      if (elapsed >= seconds * 1000) { clearInterval(tick); resolve(); return; }
      const due = Math.floor(elapsed / interval);
      while (sent < due) {
        const message = sent % 2 === 0 ? listTools(id++, true) : callTrue(id++, true);
        sent += 1;
        post(url, agent, message).then(({ answer }) => { check(answer, message.method); answered += 1; });
      }
      if (elapsed >= samples.length * 10_000) samples.push({ at: samples.length * 10, rss: memory(host.pid) });
    }, 5);
  });
  while (answered < sent) await new Promise((resolve) => setTimeout(resolve, 20));
  samples.push({ at: Math.round((Date.now() - started) / 1000), rss: memory(host.pid) });
  host.kill("SIGTERM");
  await new Promise((resolve) => host.on("exit", resolve));
  return { rows, load: { sent, seconds: (Date.now() - started) / 1000, samples } };
}

// --- churn: vanishing listen clients and tasks -------------------------------------------
const taskEnvelope = { ...envelope, "io.modelcontextprotocol/clientCapabilities":
                         { extensions: { "io.modelcontextprotocol/tasks": {} } } };
// Opens subscriptions/listen and destroys the socket after `lifetimeMs`: a client that vanishes.
function vanishingListen(url, id, taskIds, lifetimeMs) {
  const body = JSON.stringify({ jsonrpc: "2.0", id, method: "subscriptions/listen",
    params: { _meta: taskEnvelope, notifications: { toolsListChanged: true, taskIds } } });
  const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream",
               "content-length": Buffer.byteLength(body), "mcp-protocol-version": kModern,
               "mcp-method": "subscriptions/listen" } });
  request.on("error", () => {});
  request.end(body);
  setTimeout(() => request.destroy(), lifetimeMs);
}

async function churnRun() {
  const { host, url } = await startHttpHost();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const taskPost = (id, method, params) => post(url, agent, { jsonrpc: "2.0", id, method,
    params: { ...params, _meta: taskEnvelope } });
  let id = 1;
  await post(url, agent, callTrue(id++, true));  // the computer exists before the clock starts
  const samples = [{ at: 0, rss: memory(host.pid), fds: openFiles(host.pid) }];
  const createTimes = [];
  const getTimes = [];
  let listens = 0;
  let tasks = 0;
  let completed = 0;
  const recent = [];
  const started = Date.now();
  const runTask = async () => {
    const begun = process.hrtime.bigint();
    const { answer } = await taskPost(id++, "tools/call",
      { name: "terminal_execute", arguments: { command: "true", timeout: 300 } });
    createTimes.push(Number(process.hrtime.bigint() - begun) / 1e6);
    const taskId = answer?.result?.taskId;
    if (answer?.result?.resultType !== "task" || !taskId) { wrong += 1; return; }
    tasks += 1;
    recent.push(taskId);
    if (recent.length > 5) recent.shift();
    for (;;) {
      const asked = process.hrtime.bigint();
      const task = (await taskPost(id++, "tasks/get", { taskId })).answer?.result;
      getTimes.push(Number(process.hrtime.bigint() - asked) / 1e6);
      if (task?.status === "completed") { completed += 1; return; }
      if (task?.status !== "working") { wrong += 1; return; }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const running = new Set();
  await new Promise((resolve) => {
    const tick = setInterval(() => {
      const elapsed = Date.now() - started;
      if (elapsed >= churnSeconds * 1000) { clearInterval(tick); resolve(); return; }
      vanishingListen(url, `listen-${id++}`, [...recent], 2 + (listens % 20));
      listens += 1;
      if (running.size < 8) {
        const task = runTask().finally(() => running.delete(task));
        running.add(task);
      }
      if (elapsed >= samples.length * 10_000) {
        samples.push({ at: samples.length * 10, rss: memory(host.pid), fds: openFiles(host.pid) });
      }
    }, 10);
  });
  await Promise.all([...running]);
  await new Promise((resolve) => setTimeout(resolve, 500));  // the last sockets close
  samples.push({ at: Math.round((Date.now() - started) / 1000), rss: memory(host.pid), fds: openFiles(host.pid) });
  host.kill("SIGTERM");
  await new Promise((resolve) => host.on("exit", resolve));
  return { listens, tasks, completed, createTimes, getTimes, samples, seconds: (Date.now() - started) / 1000 };
}

const stdioRows = await stdioRun();
const { rows: httpRows, load } = await httpRun();
const churn = churnSeconds > 0 ? await churnRun() : null;
console.log(`| transport | era | request | median | p90 |`);
console.log(`|---|---|---|---:|---:|`);
for (const row of [...stdioRows, ...httpRows]) {
  console.log(`| ${row.transport} | ${row.era} | ${row.method === "tools/call" ? "tools/call `true`" : row.method} | ` +
              `${percentile(row.times, 0.5).toFixed(2)} ms | ${percentile(row.times, 0.9).toFixed(2)} ms |`);
}
console.log(`\nSustained: ${load.sent} stateless requests over HTTP in ${load.seconds.toFixed(1)} s ` +
            `(${(load.sent / load.seconds).toFixed(0)}/s asked: ${rate}/s); host RSS:`);
console.log(load.samples.map((s) => `${s.at} s: ${(s.rss / 1024).toFixed(1)} MiB`).join(", "));
if (churn) {
  console.log(`\nChurn over ${churn.seconds.toFixed(1)} s: ${churn.listens} listen clients that vanished, ` +
              `${churn.tasks} tasks (${churn.completed} completed); task creation median ` +
              `${percentile(churn.createTimes, 0.5).toFixed(2)} ms (p90 ${percentile(churn.createTimes, 0.9).toFixed(2)} ms), ` +
              `tasks/get median ${percentile(churn.getTimes, 0.5).toFixed(2)} ms; host RSS and open files:`);
  console.log(churn.samples.map((s) => `${s.at} s: ${(s.rss / 1024).toFixed(1)} MiB, ${s.fds} fds`).join("; "));
}
// The run's computer goes with it.
spawnSync("docker", ["rm", "-f", `kilntainer-${computerId}`], { stdio: "ignore" });
if (wrong > 0) {
  console.error(`${wrong} wrong answers`);
  process.exit(1);
}
