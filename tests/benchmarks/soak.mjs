// soak.mjs — a long run of the Streamable HTTP transport (docs/reliability.md). Not a test: it
// measures, and exits non-zero only when a call failed or answered with another call's data.
//
//   node soak.mjs <host binary> <plugin dir> [--minutes 30] [--workers 50] [--calls-per-session 10]
//
// Starts the host over HTTP with the Docker backend (debian:bookworm-slim), then for the whole
// duration each worker opens a session, makes a few calls — terminal_execute, write_file then
// read_file of its own file, runtime_status — checks every answer, ends the session with
// DELETE, and opens the next one. Every minute it samples the host's VmRSS and open file
// descriptors. Prints a Markdown report: calls, errors, latency p50/p99, and the samples.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";

const [hostBinary, pluginDir, ...rest] = process.argv.slice(2);
const option = (name, fallback) => {
  const i = rest.indexOf(name);
  return i >= 0 ? Number(rest[i + 1]) : fallback;
};
const minutes = option("--minutes", 30);
const workers = option("--workers", 50);
const callsPerSession = option("--calls-per-session", 10);
const computerId = `soak-${process.pid}`;

const host = spawn(hostBinary, ["--backend", "docker", "--plugin-dir", pluginDir, "--transport",
                                "http", "--port", "0", "--image", "debian:bookworm-slim"],
                   { env: { ...process.env, COMPUTER_ID: computerId }, stdio: ["ignore", "ignore", "pipe"] });
let log = "";
const url = await new Promise((resolve, reject) => {
  host.stderr.on("data", (chunk) => {
    log = (log + chunk).slice(-20000);
    const match = log.match(/serving MCP over HTTP on (http:\/\/[^\s]+\/mcp)/);
    if (match) resolve(new URL(match[1]));
  });
  host.on("exit", (code) => reject(new Error(`host exited ${code}: ${log}`)));
});

function sample() {
  const status = readFileSync(`/proc/${host.pid}/status`, "utf8");
  const rssKib = Number(status.match(/VmRSS:\s+(\d+)/)[1]);
  const fds = readdirSync(`/proc/${host.pid}/fd`).length;
  return { rssKib, fds };
}

function request(agent, method, message, session) {
  const body = message ? JSON.stringify(message) : "";
  const headers = { accept: "application/json, text/event-stream" };
  if (message) {
    headers["content-type"] = "application/json";
    headers["content-length"] = Buffer.byteLength(body);
  }
  if (session) headers["mcp-session-id"] = session;
  return new Promise((resolve, reject) => {
    const sent = http.request({ host: url.hostname, port: url.port, path: url.pathname, method,
                                headers, agent }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => {
        let messages = [];
        try {
          messages = response.headers["content-type"]?.startsWith("text/event-stream")
            ? text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)))
            : text ? [JSON.parse(text)] : [];
        } catch (error) {
          return reject(new Error(`unparsable answer (${response.statusCode}): ${text.slice(0, 200)}`));
        }
        resolve({ status: response.statusCode, session: response.headers["mcp-session-id"], messages });
      });
    });
    sent.on("error", reject);
    sent.end(body);
  });
}

const deadline = Date.now() + minutes * 60_000;
const latencies = [];
let calls = 0;
let sessionsOpened = 0;
const errors = [];
function fail(what) {
  if (errors.length < 20) console.error(what);
  errors.push(what);
}

async function call(agent, session, id, name, args) {
  const started = performance.now();
  const reply = await request(agent, "POST", { jsonrpc: "2.0", id, method: "tools/call",
                                               params: { name, arguments: args } }, session);
  latencies.push(performance.now() - started);
  calls += 1;
  const answer = reply.messages.find((m) => m.id === id);
  if (!answer?.result || answer.result.isError) {
    fail(`${name} ${JSON.stringify(args).slice(0, 80)}: ${JSON.stringify(answer ?? reply).slice(0, 300)}`);
    return null;
  }
  return answer.result.structuredContent;
}

async function worker(index) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let round = 0;
  while (Date.now() < deadline) {
    round += 1;
    const init = await request(agent, "POST", { jsonrpc: "2.0", id: 0, method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "soak", version: "1" } } });
    const session = init.session;
    if (!session) { fail(`worker ${index}: no session: ${JSON.stringify(init)}`); break; }
    sessionsOpened += 1;
    await request(agent, "POST", { jsonrpc: "2.0", method: "notifications/initialized" }, session);
    for (let c = 1; c <= callsPerSession && Date.now() < deadline; c += 1) {
      const tag = `w${index}-r${round}-c${c}`;
      const kind = c % 4;
      if (kind === 1) {
        const out = await call(agent, session, c, "terminal_execute", { command: `echo ${tag}` });
        if (out && out.stdout !== `${tag}\n`) fail(`${tag}: stdout ${JSON.stringify(out.stdout)}`);
      } else if (kind === 2) {
        const out = await call(agent, session, c, "write_file", { path: `soak/${index}.txt`, content: tag });
        if (out && out.size_bytes !== Buffer.byteLength(tag)) fail(`${tag}: wrote ${out.size_bytes}`);
      } else if (kind === 3) {
        const out = await call(agent, session, c, "read_file", { path: `soak/${index}.txt` });
        if (out && !String(out.content).startsWith(`w${index}-`)) fail(`${tag}: read ${out.content}`);
      } else {
        const out = await call(agent, session, c, "runtime_status", {});
        if (out && out.runtime_state !== "ready") fail(`${tag}: runtime ${out.runtime_state}`);
      }
    }
    const closed = await request(agent, "DELETE", null, session);
    if (closed.status !== 200 && closed.status !== 204) fail(`worker ${index}: DELETE answered ${closed.status}`);
  }
  agent.destroy();
}

const samples = [{ minute: 0, ...sample() }];
const sampler = setInterval(() => {
  samples.push({ minute: samples.length, ...sample() });
  const last = samples[samples.length - 1];
  console.error(`minute ${last.minute}: ${calls} calls, ${errors.length} errors, RSS ${(last.rssKib / 1024).toFixed(1)} MiB, ${last.fds} fds`);
}, 60_000);
await Promise.all(Array.from({ length: workers }, (_, i) => worker(i).catch((e) => fail(`worker ${i}: ${e.stack ?? e}`))));
clearInterval(sampler);
samples.push({ minute: minutes, ...sample() });

host.kill("SIGTERM");
const exitCode = await new Promise((resolve) => host.on("exit", resolve));
spawnSync("docker", ["rm", "-f", `kilntainer-${computerId}`], { stdio: "ignore" });

const sorted = [...latencies].sort((a, b) => a - b);
const pct = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const warm = samples[Math.min(2, samples.length - 1)];
const last = samples[samples.length - 1];
console.log("| measure | value |");
console.log("|---|---|");
console.log(`| duration, workers | ${minutes} min, ${workers} concurrent sessions, ${callsPerSession} calls per session, then DELETE and a new session |`);
console.log(`| sessions opened and closed | ${sessionsOpened} |`);
console.log(`| calls | ${calls} (terminal_execute, write_file, read_file, runtime_status in turn) |`);
console.log(`| errors | ${errors.length} |`);
console.log(`| latency p50 / p99 | ${pct(0.5).toFixed(0)} / ${pct(0.99).toFixed(0)} ms (one computer runs one command at a time: calls queue) |`);
console.log(`| host RSS at minute 2 (after warm-up) → end | ${(warm.rssKib / 1024).toFixed(1)} → ${(last.rssKib / 1024).toFixed(1)} MiB (growth ${((last.rssKib - warm.rssKib) / 1024).toFixed(2)} MiB) |`);
console.log(`| open descriptors at minute 2 → end | ${warm.fds} → ${last.fds} |`);
console.log(`| host exit after SIGTERM | ${exitCode} |`);
console.log("");
console.log(`RSS MiB per minute: ${samples.map((s) => (s.rssKib / 1024).toFixed(1)).join(", ")}`);
console.log(`descriptors per minute: ${samples.map((s) => s.fds).join(", ")}`);
process.exit(errors.length === 0 ? 0 : 1);
