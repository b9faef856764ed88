// The desktop as a person sees it: the official MCP TypeScript client starts the real host
// with the bundled desktop image, and Debian's Chromium (driven by playwright-core) opens the
// desktop_url the host reports. Checked by what noVNC says (connected) and by the picture
// itself: the Xfce screen is not one flat colour, and the panel's row differs from the
// background's. Then the same with the network switched off (the view must survive the
// firewall), after a checkpoint is restored (a new container: the view must show the desktop
// again), and a view without the secret must not connect.
//
// Usage: node desktop_view.mjs <host binary> [host arguments...]
// Environment: COMPUTER_ID; VC_ARTIFACT_DIR (screenshots, default ./artifacts); CHROMIUM
// (default /usr/bin/chromium). Real-time waits only: WebSocket traffic does not advance
// Chromium's virtual time.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { chromium } from "playwright-core";
import { containerOf, engineOf } from "./app_support.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node desktop_view.mjs <host binary> [arguments...]");
  process.exit(2);
}
const computerId = process.env.COMPUTER_ID ?? "e2e-desktop";
const artifacts = process.env.VC_ARTIFACT_DIR ?? "artifacts";
mkdirSync(artifacts, { recursive: true });

let passed = 0;
const failures = [];
function expect(condition, what) {
  if (condition) passed += 1;
  else failures.push(what);
  console.log(`${condition ? "ok  " : "FAIL"} ${what}`);
  return Boolean(condition);
}

const transport = new StdioClientTransport({
  command,
  args,
  env: { ...process.env, COMPUTER_ID: computerId, DESKTOP_ENVIRONMENT: "true" },
  stderr: "inherit",
});
const client = new Client({ name: "vc-desktop-view", version: "1.0.0" }, { capabilities: {} });

async function call(name, argumentsObject = {}) {
  const answer = await client.callTool({ name, arguments: argumentsObject }, undefined,
                                       { timeout: 600_000 });
  if (answer.isError) throw new Error(`${name} failed: ${JSON.stringify(answer.structuredContent)}`);
  return answer.structuredContent ?? {};
}

// Waits (real time) until noVNC's status says connected, or `seconds` pass; returns the text.
// Gives up early when Chromium aborted the page's own load (see loadView).
async function waitForConnected(page, seconds, events = {}) {
  const deadline = Date.now() + seconds * 1000;
  let status = "";
  while (Date.now() < deadline) {
    const state = await page.evaluate(() => ({
      status: document.getElementById("noVNC_status")?.textContent ?? "",
      connected: document.documentElement.classList.contains("noVNC_connected"),
      loading: document.documentElement.classList.contains("noVNC_loading"),
    }));
    status = state.status;
    if (state.connected) return { connected: true, status };
    if (events.networkChanged && state.loading) return { connected: false, status, aborted: true };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { connected: false, status };
}

// What the desktop's services were doing when the view did not connect: whether x11vnc
// answers with its RFB banner, their processes, the supervisor's state and their logs. Read
// through the engine's CLI, so that a wedged host cannot hide it. On Kubernetes, through the
// node's dockerd, which runs the pod's containers (k8s_computer_<pod>_...).
function printDesktopDiagnostics() {
  let engine = engineOf(args);
  let container = containerOf(computerId);
  if (engine === "kubernetes") {
    engine = "docker";
    container = spawnSync(engine, ["ps", "-q", "-f", `name=k8s_computer_${container}_`],
                          { encoding: "utf8", timeout: 30_000 }).stdout?.trim().split("\n")[0] ?? "";
  }
  const script = [
    "echo '--- RFB banner from 127.0.0.1:5900 (3 s):'",
    "timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/5900; head -c 12 <&3' | od -c | head -2",
    "echo '--- processes:'; ps -eo pid,stat,pcpu,etime,wchan:20,args | cut -c1-160",
    "echo '--- desktop state:'; cat /run/mcp-virtual-computer/desktop-state.json; echo",
    "for f in /tmp/vc-logs/*.log; do echo \"--- $f (last 40 lines):\"; tail -n 40 \"$f\"; done",
  ].join("; ");
  const result = spawnSync(engine, ["exec", container, "bash", "-c", script],
                           { encoding: "utf8", timeout: 30_000 });
  console.log(`diagnostics (${engine} exec, status ${result.status}):\n${result.stdout}${result.stderr}`);
  const listed = spawnSync(engine, ["ps", "-a", "--format", "{{.Names}} {{.Status}} {{.Ports}}"],
                           { encoding: "utf8", timeout: 30_000 });
  console.log(`${engine} ps:\n${listed.stdout}${listed.stderr}`);
}

// What the framebuffer canvas holds: its size, how many colours a coarse sample finds, and
// the mean colour of the panel's row and of a row in the middle of the screen.
async function describeScreen(page) {
  return page.evaluate(() => {
    const canvas = document.querySelector("#noVNC_container canvas");
    if (!canvas) return { width: 0, height: 0, colours: 0 };
    const context = canvas.getContext("2d");
    const { width, height } = canvas;
    const pixels = context.getImageData(0, 0, width, height).data;
    const colours = new Set();
    for (let y = 0; y < height; y += 4) {
      for (let x = 0; x < width; x += 4) {
        const i = (y * width + x) * 4;
        colours.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
      }
    }
    const rowMean = (y) => {
      let r = 0, g = 0, b = 0;
      for (let x = 0; x < width; x += 1) {
        const i = (y * width + x) * 4;
        r += pixels[i]; g += pixels[i + 1]; b += pixels[i + 2];
      }
      return [r / width, g / width, b / width].map(Math.round);
    };
    return { width, height, colours: colours.size, panel: rowMean(12), middle: rowMean(400) };
  });
}

// Waits (real time) until the framebuffer shows the panel over the background, or `seconds`.
async function waitForPanel(page, seconds) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    const screen = await describeScreen(page);
    if (screen.panel && screen.middle &&
        screen.panel.reduce((sum, value, i) => sum + Math.abs(value - screen.middle[i]), 0) > 60) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// What each page did since its last load: failed requests, HTTP errors and console errors,
// printed when the view does not connect.
const pageEvents = new WeakMap();
function eventsOf(page) {
  if (!pageEvents.has(page)) pageEvents.set(page, recordPageEvents(page));
  return pageEvents.get(page);
}

function recordPageEvents(page) {
  const events = [];
  const stamp = () => new Date().toISOString().slice(11, 23);
  page.on("requestfailed", (request) => {
    const reason = request.failure()?.errorText ?? "";
    if (reason.includes("ERR_NETWORK_CHANGED")) events.networkChanged = true;
    events.push(`${stamp()} request failed: ${request.url().replace(/#.*/, "")} (${reason})`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400) events.push(`${stamp()} HTTP ${response.status()}: ${response.url()}`);
  });
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") {
      events.push(`${stamp()} console ${message.type()}: ${message.text()}`);
    }
  });
  page.on("pageerror", (error) => events.push(`${stamp()} page error: ${error.message}`));
  page.on("websocket", (socket) => {
    events.push(`${stamp()} WebSocket opened: ${socket.url().replace(/token=[0-9a-f]+/, "token=…")}`);
    socket.on("close", () => events.push(`${stamp()} WebSocket closed`));
    socket.on("socketerror", (error) => events.push(`${stamp()} WebSocket error: ${error}`));
  });
  return events;
}

// Opens the view and waits for noVNC to connect. Chromium fails every request in flight with
// ERR_NETWORK_CHANGED when a network interface of the host appears or goes, which is what
// the engines do whenever any container starts or stops (the suite runs other computers
// beside this one). noVNC's scripts are ES modules, so one aborted import leaves a page that
// never starts. Such a load is repeated, at most twice, and said; an established view is not
// affected (its WebSocket stays open), and any other failure is judged as it is.
async function loadView(page, url, label) {
  const events = eventsOf(page);
  for (let attempt = 1; ; attempt += 1) {
    events.length = 0;
    events.networkChanged = false;
    if (attempt === 1) await page.goto(url);
    else await page.reload();  // goto would keep the page: the same URL up to its fragment
    const result = await waitForConnected(page, 30, events);
    if (!result.aborted || attempt === 3) return { ...result, events };
    console.log(`note ${label}: Chromium aborted the page load (ERR_NETWORK_CHANGED: a container ` +
                `started or stopped on the host); loading it again`);
  }
}

async function checkView(page, url, label) {
  const { connected, status, events } = await loadView(page, url, label);
  if (!expect(connected, `${label}: noVNC connects (status: "${status}")`)) {
    console.log(`the page's events:\n  ${events.join("\n  ") || "(none)"}`);
    printDesktopDiagnostics();
  }
  // The first full frame arrives and the Xfce panel paints; the checks below judge it.
  await waitForPanel(page, 30);
  await page.waitForTimeout(500);
  const shot = join(artifacts, `desktop-${computerId}-${label}.png`);
  await page.screenshot({ path: shot });
  console.log(`screenshot: ${shot}`);
  const screen = await describeScreen(page);
  console.log(`${label}: screen ${JSON.stringify(screen)}`);
  expect(screen.width === 1280 && screen.height === 800, `${label}: the framebuffer is 1280x800`);
  expect(screen.colours > 20, `${label}: the screen is not one flat colour (${screen.colours} colours)`);
  const difference = screen.panel && screen.middle
    ? screen.panel.reduce((sum, value, i) => sum + Math.abs(value - screen.middle[i]), 0) : 0;
  expect(difference > 60, `${label}: the panel's row differs from the background (by ${difference})`);
}

let browser;
try {
  await client.connect(transport);
  const ui = await call("computer_ui");
  console.log("computer_ui:", JSON.stringify({ ...ui, desktop_url: ui.desktop_url ? "<set>" : null }));
  expect(ui.desktop_environment === true, "computer_ui: the Xfce desktop is on");
  const url = ui.desktop_url ?? "";
  expect(/^http:\/\/127\.0\.0\.1:\d+\/vnc\.html#.*token%3D[0-9a-f]{48}$/.test(url),
         "computer_ui: desktop_url opens noVNC on 127.0.0.1 with the computer's secret");

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-domain-reliability", "--no-pings",
           "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
  });
  const page = await browser.newPage({ viewport: { width: 1300, height: 860 } });
  await checkView(page, url, "on");

  const offline = await call("set_network_access", { enabled: false });
  expect(offline.network_access === false, "set_network_access: the network is off");
  await checkView(page, offline.desktop_url ?? url, "network-off");
  await call("set_network_access", { enabled: true });

  // A checkpoint restored: a new container under the same computer, and the person's view
  // shows the desktop again (the same secret; the engine may publish another port). Only on
  // backends that keep checkpoints (not Kubernetes).
  const { tools } = await client.listTools();
  let currentUrl = url;  // the port the engine publishes now
  if (tools.some((tool) => tool.name === "checkpoint_restore")) {
    const saved = await call("checkpoint_create", { name: "view" });
    expect(saved.checkpoint?.name === "view", "checkpoint_create: the checkpoint is taken");
    await call("terminal_execute", { command: "echo later > /workspace/later.txt" });
    const restored = await call("checkpoint_restore", { name: "view" });
    expect(restored.ok === true, "checkpoint_restore: the computer is back");
    const back = await call("computer_ui");
    expect(back.desktop_environment === true, "after the restore the Xfce desktop is on");
    const token = (text) => /token%3D([0-9a-f]{48})/.exec(text ?? "")?.[1];
    expect(token(back.desktop_url) === token(url), "after the restore the desktop secret is the same");
    currentUrl = back.desktop_url ?? url;
    await checkView(page, currentUrl, "restored");
    const gone = await call("terminal_execute", { command: "test -e /workspace/later.txt; echo $?" });
    expect(gone.stdout === "1\n", "after the restore a file written later is gone");
  } else {
    console.log("note: this backend keeps no checkpoints; the restored view is not checked");
  }

  // The same page without the secret, or with another one, never connects.
  const stranger = await browser.newPage({ viewport: { width: 1300, height: 860 } });
  await stranger.goto(currentUrl.replace(/token%3D[0-9a-f]{48}/, `token%3D${"0".repeat(48)}`));
  const refused = await waitForConnected(stranger, 6);
  expect(!refused.connected, `without the secret noVNC does not connect (status: "${refused.status}")`);
  await stranger.screenshot({ path: join(artifacts, `desktop-${computerId}-refused.png`) });
} catch (error) {
  failures.push(`error: ${error?.stack ?? error}`);
  console.log("FAIL", error?.stack ?? error);
} finally {
  await browser?.close().catch(() => {});
  try {
    await client.callTool({ name: "computer_delete", arguments: { computer_id: computerId } });
  } catch {}
  await client.close().catch(() => {});
}

console.log(`${passed} passed, ${failures.length} failed`);
if (failures.length > 0) {
  console.log("failures:\n  " + failures.join("\n  "));
  process.exit(1);
}
