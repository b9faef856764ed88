// The MCP App as a standalone page: the real host over HTTP with a bearer token and a real
// desktop computer; Debian's Chromium opens /dashboard.html#token=… and a person's view is
// checked — the computer's id and state, the live desktop on the canvas, another client's
// command and file in the activity panel, a command run from the page, the file browser,
// the network switch (checked through the server), the sound, a wrong token, and the server
// going away. Screenshots of each state go to $VC_ARTIFACT_DIR/app-dashboard-*.png.
//
// Usage: node app_dashboard.mjs <host binary> [host arguments...]
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  describeCanvas, engineExec, engineOf, expect, finish, launchBrowser, removeComputer,
  screenshot, sleep, startHttpHost, stopHost, textOf, waitFor,
} from "./app_support.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node app_dashboard.mjs <host binary> [arguments...]");
  process.exit(2);
}
const computerId = process.env.COMPUTER_ID ?? "e2e-app-dashboard";
const engine = engineOf(args);
const token = randomBytes(24).toString("hex");
const APP_URI = "ui://virtual-computer/computer.html";

removeComputer(engine, computerId);
let host;
let browser;
let agent;
let error;
try {
  host = await startHttpHost(command, [...args, "--auth-token", token],
                             { COMPUTER_ID: computerId, DESKTOP_ENVIRONMENT: "true" });
  const { origin } = host;

  // The agent: the official TypeScript client, with the token.
  agent = new Client({ name: "vc-e2e-app-agent", version: "1.0.0" }, { capabilities: {} });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }));
  const call = async (name, argumentsObject = {}) => {
    const answer = await agent.callTool({ name, arguments: argumentsObject }, undefined,
                                        { timeout: 600_000 });
    if (answer.isError) throw new Error(`${name} failed: ${JSON.stringify(answer.content)}`);
    return answer.structuredContent ?? {};
  };

  // What a chat client sees of the App on the server.
  const capabilities = agent.getServerCapabilities();
  expect(capabilities?.extensions?.["io.modelcontextprotocol/ui"] !== undefined,
         "initialize: the server declares the MCP Apps extension");
  const listed = (await agent.listResources()).resources.find((resource) => resource.uri === APP_URI);
  expect(listed?.mimeType === "text/html;profile=mcp-app", "resources/list: the App, text/html;profile=mcp-app");
  expect(JSON.stringify(listed?._meta?.ui?.csp?.connectDomains) === '["ws://127.0.0.1:*"]',
         "resources/list: its CSP allows the desktop's WebSocket on loopback only");
  const read = await agent.readResource({ uri: APP_URI });
  const html = read.contents?.[0]?.text ?? "";
  expect(read.contents?.[0]?.mimeType === "text/html;profile=mcp-app" && html.length > 10_000,
         `resources/read: the App's HTML (${html.length} bytes)`);
  expect(!/<script[^>]+src=/i.test(html) && !/<link[^>]+rel=/i.test(html),
         "resources/read: self-contained (no <script src>, no <link rel>)");
  expect(read.contents?.[0]?._meta?.ui?.prefersBorder === false, "resources/read: _meta.ui in the contents");
  const tools = (await agent.listTools()).tools;
  const meta = (name) => tools.find((tool) => tool.name === name)?._meta ?? {};
  expect(meta("computer_ui").ui?.resourceUri === APP_URI && meta("terminal_execute").ui?.resourceUri === APP_URI,
         "tools/list: computer_ui and terminal_execute link to the App");
  expect(["runtime_status", "set_network_access", "set_desktop_environment", "list_directory", "read_activity"]
           .every((name) => JSON.stringify(meta(name).ui?.visibility) === '["app"]'),
         "tools/list: the App's own tools are app-only");

  // The page's route: open without the token, with its own policy; the feed is not.
  const page0 = await fetch(`${origin}/dashboard.html`);
  const served = await page0.text();
  expect(page0.status === 200 && served === html, "GET /dashboard.html: 200, the same App, without the token");
  expect(/frame-ancestors 'none'/.test(page0.headers.get("content-security-policy") ?? ""),
         "GET /dashboard.html: a Content-Security-Policy that forbids framing");
  expect((await fetch(`${origin}/activity`)).status === 401, "GET /activity: 401 without the token");

  // The computer, started by the agent (builds nothing: the image is prepared).
  const ui = await call("computer_ui");
  expect(ui.computer_id === computerId && typeof ui.desktop_url === "string", "computer_ui: a desktop computer");

  browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const consoleErrors = [];
  page.on("console", (message) => { if (message.type() === "error") consoleErrors.push(message.text()); });
  page.on("pageerror", (problem) => consoleErrors.push(String(problem)));
  await page.goto(`${origin}/dashboard.html#token=${token}`);
  expect(await waitFor(async () => !page.url().includes(token), 5),
         "the token left the address bar at once");
  expect(await waitFor(async () => (await textOf(page, "#state")) === "running", 60),
         `the page shows the computer running (${await textOf(page, "#state")})`);
  expect((await textOf(page, "#computer-id")) === computerId, "the page shows the computer's id");
  const screen = await waitFor(async () => {
    const described = await describeCanvas(page);
    return described.colours > 50 ? described : false;
  }, 90, 500);
  expect(screen && screen.width === 1280 && screen.height === 800,
         `the live desktop is on the canvas (${JSON.stringify(await describeCanvas(page))})`);
  expect(await page.evaluate(() => document.getElementById("desktop-note").textContent === "watch only"),
         "the view is watch-only until the person takes control");
  await sleep(1500);
  await screenshot(page, "dashboard-desktop");

  // Another client's work appears as it happens.
  const marker = `agent-${randomBytes(4).toString("hex")}`;
  await call("terminal_execute", { command: `echo ${marker}` });
  await call("write_file", { path: "/workspace/notes/hello.txt", content: `hello from ${marker}\n`,
                             create_parent_directories: true });
  expect(await waitFor(async () => (await textOf(page, "#activity-list")).includes(`${marker}\n`), 15),
         "the agent's command and its output appear in the activity panel");
  expect(await waitFor(async () => (await textOf(page, "#activity-list")).includes("/workspace/notes/hello.txt"), 15),
         "the agent's file write appears in the activity panel");
  await screenshot(page, "dashboard-activity");

  // A command from the page.
  await page.click("#tab-terminal");
  await page.fill("#terminal-input", "echo from-the-page; exit 3");
  await page.click("#terminal-run");
  expect(await waitFor(async () => {
    const output = await textOf(page, "#terminal-output");
    return output.includes("from-the-page\n") && output.includes("[exit 3");
  }, 30), "a command run from the page shows its output and exit code 3");
  await screenshot(page, "dashboard-terminal");

  // The file browser.
  await page.click("#tab-files");
  await page.fill("#files-path", "/workspace/notes");
  await page.click("#files-form button[type=submit]");
  expect(await waitFor(async () => (await textOf(page, "#files-list")).includes("hello.txt"), 15),
         `the file browser lists the agent's file (${await textOf(page, "#files-list")} | ${await textOf(page, "#file-view")})`);
  await page.click("#files-list li[data-path='/workspace/notes/hello.txt']");
  expect(await waitFor(async () => (await textOf(page, "#file-view")) === `hello from ${marker}\n`, 15),
         "the viewer shows the file's exact content");
  await screenshot(page, "dashboard-files");

  // The network switch, for real.
  await page.click("#network-switch");
  expect(await waitFor(async () => (await call("runtime_status")).network_access === false, 60),
         "switching the network off on the page turns it off (runtime_status)");
  expect(await waitFor(async () => !(await page.isChecked("#network-switch")), 10), "the switch shows it off");
  expect(await waitFor(async () => (await page.evaluate(() => window.virtualComputer.view.state)) === "connected", 30),
         "the desktop view survives the firewall");
  await screenshot(page, "dashboard-network-off");
  await waitFor(async () => !(await page.isDisabled("#network-switch")), 30);
  await page.click("#network-switch");
  expect(await waitFor(async () => (await call("runtime_status")).network_access === true, 60),
         "switching it on again turns it on");

  // The sound: a 440 Hz tone played inside the computer reaches the page.
  await page.click("#sound-button");
  await sleep(1000);
  const tone = engineExec(engine, computerId,
    "export PULSE_SERVER=unix:/run/user/1000/pulse/native; python3 -c \"import math,struct,sys; " +
    "sys.stdout.buffer.write(b''.join(struct.pack('<hh', v, v) for v in " +
    "(int(16000*math.sin(2*math.pi*440*i/48000)) for i in range(48000*2))))\" | " +
    "pacat --raw --format=s16le --rate=48000 --channels=2 --device=mcp_output");
  expect(tone.status === 0, `a tone plays in the computer (${tone.stderr.trim()})`);
  const heard = await waitFor(async () => {
    const sound = await page.evaluate(() => window.virtualComputer.sound);
    return sound.peak > 0.3 ? sound : false;
  }, 20);
  expect(heard, `the tone arrives in the page (${JSON.stringify(await page.evaluate(() => window.virtualComputer.sound))})`);
  await page.click("#sound-button");

  // Taking control.
  await page.click("#control-button");
  expect((await textOf(page, "#desktop-note")).startsWith("you have control"), "take control: the page says so");
  await page.click("#control-button");

  const relevant = consoleErrors.filter((text) => !/favicon/.test(text));
  expect(relevant.length === 0, `no console errors (${relevant.join(" | ")})`);

  // A wrong token: the lock form; the right one typed in connects.
  const locked = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await locked.goto(`${origin}/dashboard.html#token=not-the-token`);
  expect(await waitFor(async () => locked.isVisible("#lock-form"), 15), "a wrong token shows the token form");
  expect((await textOf(locked, "#lock-reason")).includes("refused"), "and says the token was refused");
  await screenshot(locked, "dashboard-wrong-token");
  await locked.fill("#lock-token", token);
  await locked.click("#lock-form button[type=submit]");
  expect(await waitFor(async () => (await textOf(locked, "#state")) === "running", 30),
         "the typed token connects");
  await locked.close();

  // The server goes away.
  await agent.close();
  agent = undefined;
  await stopHost(host.process);
  expect(await waitFor(async () => (await textOf(page, "#banner")).includes("Cannot reach the server"), 30),
         `a stopped server is reported (${await textOf(page, "#banner")})`);
  await screenshot(page, "dashboard-server-gone");
} catch (caught) {
  error = caught;
} finally {
  await browser?.close().catch(() => undefined);
  await agent?.close().catch(() => undefined);
  await stopHost(host?.process);
  removeComputer(engine, computerId);
}
finish(error);
