// The MCP App inside a chat client: the official TypeScript client starts the real host over
// stdio (as a desktop chat client does) with a desktop computer, reads the App from
// resources/read, and a chat-client page in Debian's Chromium (the ext-apps SDK's AppBridge,
// tests/host-harness.html of the App) renders it in a sandboxed iframe under the CSP the
// resource declares, forwarding the App's tool calls to this client. Checked: the App
// initialises, calls computer_ui and runtime_status through the bridge, shows the computer
// and its live desktop, shows the agent's next command, and is held to its CSP. Screenshots:
// $VC_ARTIFACT_DIR/app-hosted-*.png.
//
// Usage: node app_hosted.mjs <host binary> [host arguments...]
// Environment: VC_APP_HARNESS (the harness page), COMPUTER_ID, CHROMIUM, VC_ARTIFACT_DIR.
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  describeCanvas, engineOf, expect, finish, launchBrowser, removeComputer, screenshot, sleep,
  textOf, waitFor,
} from "./app_support.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command || !process.env.VC_APP_HARNESS) {
  console.error("usage: VC_APP_HARNESS=<harness.html> node app_hosted.mjs <host binary> [arguments...]");
  process.exit(2);
}
const computerId = process.env.COMPUTER_ID ?? "e2e-app-hosted";
const engine = engineOf(args);
const APP_URI = "ui://virtual-computer/computer.html";
const harnessHtml = readFileSync(process.env.VC_APP_HARNESS, "utf8");

removeComputer(engine, computerId);
const client = new Client({ name: "vc-e2e-chat-client", version: "1.0.0" }, { capabilities: {} });
let browser;
let stranger;
let error;
try {
  await client.connect(new StdioClientTransport({
    command, args,
    env: { ...process.env, COMPUTER_ID: computerId, DESKTOP_ENVIRONMENT: "true" },
    stderr: "inherit",
  }));
  // The model asked for the computer: the client calls computer_ui, sees its _meta, reads the App.
  const tools = (await client.listTools()).tools;
  const linked = tools.find((tool) => tool.name === "computer_ui")?._meta?.ui?.resourceUri;
  expect(linked === APP_URI, "computer_ui links to the App");
  const result = await client.callTool({ name: "computer_ui", arguments: {} }, undefined, { timeout: 600_000 });
  expect(!result.isError && result.structuredContent?.computer_id === computerId, "computer_ui: the computer runs");
  const read = await client.readResource({ uri: linked });
  const content = read.contents[0];
  const csp = content._meta?.ui?.csp ?? {};

  // A listener of this test's own on a loopback origin the CSP does not declare: the App's
  // frame must not reach it.
  let strangerHits = 0;
  stranger = createServer((request, response) => {
    strangerHits += 1;
    response.end("no");
  });
  await new Promise((resolve) => stranger.listen(0, "127.0.0.1", resolve));
  const strangerUrl = `http://localhost:${stranger.address().port}/probe`;

  browser = await launchBrowser();
  // A chat client's site reaches the desktop on 127.0.0.1 only with the person's consent
  // (Chromium's local network access prompt), which this person has given.
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  await context.grantPermissions(["local-network-access"], { origin: "https://chat-client.test" });
  const page = await context.newPage();
  const consoleErrors = [];
  page.on("console", (message) => { if (message.type() === "error") consoleErrors.push(message.text()); });
  // The chat client's page comes from this test, never the network.
  await page.route("https://chat-client.test/**", (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: harnessHtml }));
  await page.exposeFunction("vcHost", async (method, params) => {
    if (method === "tools/call") return client.callTool(params, undefined, { timeout: 600_000 });
    if (method === "resources/read") return client.readResource(params);
    if (method === "resources/list") return client.listResources(params);
    throw new Error(`the test client does not forward ${method}`);
  });
  await page.goto("https://chat-client.test/");
  const started = performance.now();
  await page.evaluate(([html, policy, toolResult]) => window.vcShowApp(html, policy, toolResult),
                      [content.text, csp, result]);
  expect(await waitFor(() => page.evaluate(() => window.vcHarness.initialized), 20),
         "the App completed the ui/initialize handshake with the client");
  const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
  expect(frame !== undefined, "the App runs in the client's iframe");
  const sandbox = await page.evaluate(() => document.querySelector("iframe").getAttribute("sandbox"));
  expect(sandbox === "allow-scripts", "the iframe is sandboxed (scripts only, opaque origin)");

  expect(await waitFor(async () => (await textOf(frame, "#state")) === "running", 60),
         `the App shows the computer running (${await textOf(frame, "#state")})`);
  expect((await textOf(frame, "#computer-id")) === computerId, "the App shows the computer's id");
  const calls = await page.evaluate(() => window.vcHarness.calls);
  expect(calls.includes("computer_ui") && calls.includes("runtime_status"),
         `the App called computer_ui and runtime_status through the bridge (${[...new Set(calls)].join(", ")})`);
  expect(await frame.evaluate(() => window.virtualComputer.mode) === "hosted", "the App knows it is hosted");
  const screen = await waitFor(async () => {
    const described = await describeCanvas(frame);
    return described.colours > 50 ? described : false;
  }, 90, 250);
  const firstFrameMs = Math.round(performance.now() - started);
  expect(screen && screen.width === 1280, `the live desktop shows inside the iframe (${JSON.stringify(screen)})`);
  console.log(`bench: resources/read to first desktop frame in the iframe: ${firstFrameMs} ms`);
  await sleep(1500);
  await screenshot(page, "hosted-desktop");

  // The CSP holds: a request to an origin it does not declare is refused.
  const probe = await frame.evaluate(async (url) => {
    try {
      await fetch(url);
      return "reached";
    } catch (problem) {
      return `refused: ${problem}`;
    }
  }, strangerUrl);
  expect(probe.startsWith("refused") && strangerHits === 0,
         `a fetch to an undeclared origin is refused by the declared CSP (${probe}; ${strangerHits} hits)`);

  // The agent's next command appears in the App.
  const marker = `hosted-${randomBytes(4).toString("hex")}`;
  await client.callTool({ name: "terminal_execute", arguments: { command: `echo ${marker}` } });
  expect(await waitFor(async () => (await textOf(frame, "#activity-list")).includes(`${marker}\n`), 30),
         "the agent's command appears in the App's activity panel");
  await screenshot(page, "hosted-activity");

  // The checkpoints tab works through the client's bridge too.
  expect(await waitFor(async () => frame.isVisible("#tab-checkpoints"), 30), "the App offers its Checkpoints tab");
  await frame.click("#tab-checkpoints");
  expect(await waitFor(async () => frame.isVisible("#checkpoint-empty"), 30) &&
         (await page.evaluate(() => window.vcHarness.calls)).includes("checkpoint_list"),
         "opening it lists the computer's checkpoints (none) through the bridge");
  await frame.click("#tab-activity");
  const relevant = consoleErrors.filter((text) => !text.includes(strangerUrl) && !/connect-src/.test(text));
  expect(relevant.length === 0, `no console errors (${relevant.join(" | ")})`);
} catch (caught) {
  error = caught;
} finally {
  await browser?.close().catch(() => undefined);
  stranger?.close();
  await client.close().catch(() => undefined);
  removeComputer(engine, computerId);
}
finish(error);
