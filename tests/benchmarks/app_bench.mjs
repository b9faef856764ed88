// app_bench.mjs — the MCP App's figures (docs/benchmarks.md, "The in-chat view"). Not a test.
//   node app_bench.mjs <host binary> [host arguments...] [--runs N] [--idle-seconds S]
// Environment: VC_APP_FILE (the built App), VC_APP_HARNESS (the chat-client page), CHROMIUM.
// Measures: the App's size (raw and gzip -9); the time from resources/read to the first
// desktop frame drawn in the chat client's iframe, with a warm computer, over N fresh pages;
// and the main-thread time the App costs while idle on a still desktop (Chromium's
// TaskDuration over S seconds, in % of one core).
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describeCanvas, launchBrowser, removeComputer, engineOf, sleep, waitFor } from "./app_support.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(argv[at + 1]);
  argv.splice(at, 2);
  return value;
};
const runs = option("--runs", 10);
const idleSeconds = option("--idle-seconds", 30);
const [command, ...args] = argv;
const computerId = process.env.COMPUTER_ID ?? "bench-app";
const engine = engineOf(args);
const APP_URI = "ui://virtual-computer/computer.html";

const app = readFileSync(process.env.VC_APP_FILE);
const gzipped = gzipSync(app, { level: 9 }).length;
console.log(`| App size | ${(app.length / 1024).toFixed(0)} KiB raw, ${(gzipped / 1024).toFixed(0)} KiB gzip -9 |`);

removeComputer(engine, computerId);
const client = new Client({ name: "vc-app-bench", version: "1.0.0" }, { capabilities: {} });
await client.connect(new StdioClientTransport({
  command, args, env: { ...process.env, COMPUTER_ID: computerId, DESKTOP_ENVIRONMENT: "true" },
  stderr: "ignore",
}));
const result = await client.callTool({ name: "computer_ui", arguments: {} }, undefined, { timeout: 600_000 });
const harness = readFileSync(process.env.VC_APP_HARNESS, "utf8");
const browser = await launchBrowser();

async function openApp() {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  await context.grantPermissions(["local-network-access"], { origin: "https://chat-client.test" });
  const page = await context.newPage();
  await page.route("https://chat-client.test/**", (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: harness }));
  await page.exposeFunction("vcHost", async (method, params) => {
    if (method === "tools/call") return client.callTool(params, undefined, { timeout: 600_000 });
    if (method === "resources/read") return client.readResource(params);
    return client.listResources(params);
  });
  await page.goto("https://chat-client.test/");
  const started = performance.now();
  const read = await client.readResource({ uri: APP_URI });
  await page.evaluate(([html, csp, toolResult]) => window.vcShowApp(html, csp, toolResult),
                      [read.contents[0].text, read.contents[0]._meta?.ui?.csp ?? {}, result]);
  const frame = () => page.frames().find((candidate) => candidate !== page.mainFrame());
  const shown = await waitFor(async () => (await describeCanvas(frame())).colours > 50, 60, 10);
  return { context, page, ms: shown ? performance.now() - started : NaN };
}

const times = [];
for (let run = 0; run < runs; run += 1) {
  const { context, ms } = await openApp();
  times.push(ms);
  await context.close();
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
console.log(`| resources/read → first desktop frame in the iframe (${runs} runs) | median ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, min ${times[0].toFixed(0)} ms |`);

const { context, page } = await openApp();
await sleep(5000);
const session = await context.newCDPSession(page);
await session.send("Performance.enable");
const busy = async () => (await session.send("Performance.getMetrics")).metrics
  .find((metric) => metric.name === "TaskDuration").value;
const before = await busy();
await sleep(idleSeconds * 1000);
const after = await busy();
console.log(`| the App idle on a still desktop (${idleSeconds} s) | main thread busy ${(100 * (after - before) / idleSeconds).toFixed(2)} % of a core |`);

await browser.close();
await client.close();
removeComputer(engine, computerId);
