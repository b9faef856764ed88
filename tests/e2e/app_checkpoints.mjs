// The MCP App's checkpoints tab, in the standalone page: the real host over HTTP with a token
// and a real Docker desktop computer; Debian's Chromium opens /dashboard.html. A file written
// from the page's terminal, a checkpoint taken in the tab, the file changed, the checkpoint
// restored after the page's own confirmation, and the file checked in the container with
// `docker exec`; a bad name refused by the page, a taken name refused by the server (its
// sentence shown as is), the list read again when the tab opens, a checkpoint deleted and gone
// from `docker images`; and no tab at all on a server without checkpoints (the process
// backend). Screenshots go to $VC_ARTIFACT_DIR/app-checkpoints-*.png.
//
// Usage: node app_checkpoints.mjs <host binary> [host arguments...]
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  containerOf, describeCanvas, engineOf, expect, finish, launchBrowser, removeComputer,
  screenshot, sleep, startHttpHost, stopHost, textOf, waitFor,
} from "./app_support.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node app_checkpoints.mjs <host binary> [arguments...]");
  process.exit(2);
}
const computerId = process.env.COMPUTER_ID ?? "e2e-app-checkpoints";
const engine = engineOf(args);
const token = randomBytes(24).toString("hex");
const checkpointRepository = `localhost/mcp-virtual-computer-checkpoint/${computerId}`;
const baseRepository = `localhost/mcp-virtual-computer-base/${computerId}`;

// The engine's own view: the tags of a repository, and a file in the computer.
function tagsOf(repository) {
  const listed = spawnSync(engine, ["images", "--format", "{{.Repository}}:{{.Tag}}", repository],
                           { encoding: "utf8" });
  return listed.stdout.split("\n").filter((line) => line.startsWith(`${repository}:`))
    .map((line) => line.slice(repository.length + 1));
}
function removeImages() {
  for (const repository of [checkpointRepository, baseRepository]) {
    for (const tag of tagsOf(repository)) {
      spawnSync(engine, ["rmi", "-f", `${repository}:${tag}`], { stdio: "ignore" });
    }
  }
}
function fileInComputer(path) {
  const read = spawnSync(engine, ["exec", containerOf(computerId), "cat", path], { encoding: "utf8" });
  return read.status === 0 ? read.stdout : `(exit ${read.status}: ${read.stderr.trim()})`;
}

removeComputer(engine, computerId);
removeImages();
let host;
let bare;
let browser;
let agent;
let error;
const scratch = mkdtempSync(join(tmpdir(), "vc-app-checkpoints-"));
try {
  host = await startHttpHost(command, [...args, "--auth-token", token],
                             { COMPUTER_ID: computerId, DESKTOP_ENVIRONMENT: "true" });
  const { origin } = host;

  // The agent: the official TypeScript client, with the token.
  agent = new Client({ name: "vc-e2e-app-checkpoints", version: "1.0.0" }, { capabilities: {} });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }));
  const callRaw = (name, argumentsObject = {}) =>
    agent.callTool({ name, arguments: argumentsObject }, undefined, { timeout: 600_000 });
  const call = async (name, argumentsObject = {}) => {
    const answer = await callRaw(name, argumentsObject);
    if (answer.isError) throw new Error(`${name} failed: ${JSON.stringify(answer.content)}`);
    return answer.structuredContent ?? {};
  };
  const tools = (await agent.listTools()).tools;
  const listed = ["checkpoint_create", "checkpoint_list", "checkpoint_restore", "checkpoint_delete"]
    .map((name) => tools.find((tool) => tool.name === name));
  expect(listed.every((tool) => tool && tool._meta?.ui?.visibility === undefined),
         "tools/list: the four checkpoint tools, visible to the model (the App calls them too)");

  const ui = await call("computer_ui");
  expect(ui.computer_id === computerId && typeof ui.desktop_url === "string", "computer_ui: a desktop computer");

  browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const consoleErrors = [];
  page.on("console", (message) => { if (message.type() === "error") consoleErrors.push(message.text()); });
  page.on("pageerror", (problem) => consoleErrors.push(String(problem)));
  await page.goto(`${origin}/dashboard.html#token=${token}`);
  expect(await waitFor(async () => (await textOf(page, "#state")) === "running", 60),
         `the page shows the computer running (${await textOf(page, "#state")})`);
  expect(await waitFor(async () => page.isVisible("#tab-checkpoints"), 30),
         "the Checkpoints tab appears: the server has checkpoints");

  const status = () => textOf(page, "#checkpoint-status");
  const rows = () => page.evaluate(() =>
    [...document.querySelectorAll("#checkpoint-list li")].map((item) => ({
      name: item.dataset.name, text: item.textContent,
    })));
  const terminal = async (line) => {
    await page.click("#tab-terminal");
    const before = (await textOf(page, "#terminal-output")).split("[exit ").length;
    await page.fill("#terminal-input", line);
    await page.click("#terminal-run");
    return waitFor(async () => {
      const output = await textOf(page, "#terminal-output");
      return output.split("[exit ").length > before && output.trimEnd().endsWith("ms]") ? output : false;
    }, 60);
  };

  // A file, written as a person would, before the checkpoint.
  const original = await terminal("echo original > /workspace/cp.txt");
  expect(original && /\[exit 0 · /.test(original.slice(original.lastIndexOf("$ "))),
         "the page's terminal writes /workspace/cp.txt (exit 0)");
  expect(fileInComputer("/workspace/cp.txt") === "original\n", "docker exec: cp.txt says original");

  // The tab, empty at first.
  await page.click("#tab-checkpoints");
  expect(await waitFor(async () => page.isVisible("#checkpoint-empty"), 15),
         "the tab opens on an empty list that says so");
  expect(await page.getAttribute("#checkpoint-name", "maxlength") === "63", "the name field takes at most 63 characters");

  // Names the page refuses itself: nothing reaches the server.
  await page.fill("#checkpoint-name", "-not a name");
  await page.click("#checkpoint-create");
  expect(await waitFor(async () => (await status()).includes("cannot be a checkpoint name"), 5),
         `a bad name is refused in the page (${await status()})`);
  expect(await page.getAttribute("#checkpoint-name", "aria-invalid") === "true", "and the field is marked invalid");
  await page.fill("#checkpoint-name", "");
  await page.click("#checkpoint-create");
  expect(await waitFor(async () => (await status()).startsWith("Type a name"), 5), "an empty name asks for one");
  await page.fill("#checkpoint-name", "");
  await page.locator("#checkpoint-name").pressSequentially("x".repeat(70));
  expect((await page.inputValue("#checkpoint-name")).length === 63, "typing 70 characters keeps 63");
  expect(tagsOf(checkpointRepository).length === 0, "docker images: no checkpoint was taken for a bad name");

  // The checkpoint, from the tab.
  // Every text the status line shows, with whether Create could be pressed then.
  await page.evaluate(() => {
    window.statusLog = [];
    const line = document.getElementById("checkpoint-status");
    new MutationObserver(() => window.statusLog.push({
      text: line.textContent, createDisabled: document.getElementById("checkpoint-create").disabled,
    })).observe(line, { childList: true, characterData: true, subtree: true });
  });
  const shown = (text) => page.evaluate((wanted) => window.statusLog.find((entry) => entry.text === wanted) ?? null, text);
  await page.fill("#checkpoint-name", "before");
  await page.click("#checkpoint-create");
  expect(await waitFor(async () => (await rows()).some((row) => row.name === "before"), 300),
         `the list shows "before" (${await status()})`);
  expect((await status()) === "Saved checkpoint before.", `the status says it was saved (${await status()})`);
  expect((await shown("Saving checkpoint before…"))?.createDisabled === true,
         "while saving, the status said so and Create was disabled");
  const row = (await rows()).find((item) => item.name === "before");
  expect(/files only/.test(row?.text ?? "") && /\d+(\.\d)? (B|kB|MB|GB)/.test(row?.text ?? ""),
         `the row says when, its size and "files only" (${row?.text})`);
  expect(tagsOf(checkpointRepository).includes("before"), `docker images: ${checkpointRepository}:before`);

  // The same name again: the server's own sentence, as is.
  const duplicate = await callRaw("checkpoint_create", { name: "before" });
  const sentence = JSON.parse(duplicate.content?.[0]?.text ?? "{}").error ?? "";
  expect(duplicate.isError && sentence.length > 0, `the server refuses a taken name (${sentence})`);
  await page.fill("#checkpoint-name", "before");
  await page.click("#checkpoint-create");
  expect(await waitFor(async () => (await status()).includes(sentence), 30),
         `the page shows the server's sentence for a taken name (${await status()})`);

  // The list is read again when the tab opens: a checkpoint the agent took appears.
  await call("checkpoint_create", { name: "from-agent" });
  const changed = await terminal("echo changed > /workspace/cp.txt");
  expect(changed && /\[exit 0 · /.test(changed.slice(changed.lastIndexOf("$ "))), "the page's terminal changes cp.txt");
  expect(fileInComputer("/workspace/cp.txt") === "changed\n", "docker exec: cp.txt says changed");
  await page.click("#tab-checkpoints");
  expect(await waitFor(async () => (await rows()).map((item) => item.name).join(",") === "from-agent,before", 15),
         `opening the tab lists the agent's checkpoint too, newest first (${(await rows()).map((item) => item.name)})`);

  // Restore, after the page's confirmation; cancelling first changes nothing.
  await page.click("#checkpoint-list li[data-name='before'] button.restore");
  expect(await waitFor(async () => page.isVisible("#checkpoint-confirm[role=alertdialog]"), 5),
         "Restore asks first, in the page");
  expect((await textOf(page, "#checkpoint-confirm-title")) === "Restore before?" &&
         (await textOf(page, "#checkpoint-confirm-yes")) === "Restore before" &&
         (await page.evaluate(() => document.activeElement?.id)) === "checkpoint-confirm-no",
         "the question names the checkpoint, its buttons say what they do, and Cancel has the focus");
  expect(await page.isDisabled("#checkpoint-list li[data-name='before'] button.restore") &&
         await page.isDisabled("#checkpoint-create"), "while asking, the other actions wait");
  await screenshot(page, "checkpoints-confirm");
  await page.click("#checkpoint-confirm-no");
  expect(!(await page.isVisible("#checkpoint-confirm")) && fileInComputer("/workspace/cp.txt") === "changed\n",
         "Cancel closes the question and changes nothing");
  await page.click("#checkpoint-list li[data-name='before'] button.restore");
  await page.keyboard.press("Escape");
  expect(await waitFor(async () => !(await page.isVisible("#checkpoint-confirm")), 3), "Escape closes it too");

  await page.click("#checkpoint-list li[data-name='before'] button.restore");
  await page.click("#checkpoint-confirm-yes");
  expect(await waitFor(async () => (await status()).startsWith("Restored before"), 600),
         `the status says it was restored (${await status()})`);
  expect((await shown("Restoring before…"))?.createDisabled === true,
         'while restoring, the status said "Restoring before…" and Create was disabled');
  expect(fileInComputer("/workspace/cp.txt") === "original\n",
         `docker exec: cp.txt says original again (${JSON.stringify(fileInComputer("/workspace/cp.txt"))})`);
  expect(await waitFor(async () => (await textOf(page, "#state")) === "running", 60), "the page shows it running");
  const screen = await waitFor(async () => {
    const view = await page.evaluate(() => window.virtualComputer.view.state);
    const described = await describeCanvas(page);
    return view === "connected" && described.colours > 50 ? described : false;
  }, 120, 500);
  expect(screen, `the desktop reconnects by itself (${JSON.stringify(await describeCanvas(page))})`);
  await sleep(1000);
  await screenshot(page, "checkpoints-list");

  // At chat width the page stacks; the tab still reads well.
  await page.setViewportSize({ width: 420, height: 900 });
  await sleep(500);
  const narrow = await page.evaluate(() => {
    const panel = document.getElementById("panel-checkpoints").getBoundingClientRect();
    const desk = document.getElementById("desktop-panel").getBoundingClientRect();
    return { stacked: panel.top > desk.bottom, fits: document.documentElement.scrollWidth <= 420 };
  });
  expect(narrow.stacked && narrow.fits, `at chat width the panels stack with no sideways scroll (${JSON.stringify(narrow)})`);
  await screenshot(page, "checkpoints-chat-width", { fullPage: true });
  await page.setViewportSize({ width: 1400, height: 900 });

  // Delete, after the question.
  await page.click("#checkpoint-list li[data-name='before'] button.delete");
  expect((await textOf(page, "#checkpoint-confirm-title")) === "Delete before?", "Delete asks first");
  await page.click("#checkpoint-confirm-yes");
  expect(await waitFor(async () => !(await rows()).some((item) => item.name === "before"), 30),
         `the list no longer shows "before" (${await status()}; checkpoint_list: ` +
         `${(await call("checkpoint_list")).checkpoints?.map((item) => item.name)})`);
  expect((await status()) === "Deleted checkpoint before.", `the status says it was deleted (${await status()})`);
  expect(!tagsOf(checkpointRepository).includes("before"),
         `docker images: ${checkpointRepository}:before is gone (${tagsOf(checkpointRepository)})`);
  await page.click("#checkpoint-list li[data-name='from-agent'] button.delete");
  await page.click("#checkpoint-confirm-yes");
  expect(await waitFor(async () => (await status()) === "Deleted checkpoint from-agent." &&
                                   !(await rows()).some((item) => item.name === "from-agent"), 120),
         `deleting "from-agent" takes it off the list (${(await rows()).map((item) => item.name)})`);
  expect(tagsOf(checkpointRepository).length === 0, "docker images: no checkpoint of the computer is left");

  // While the restore replaced the container, the desktop's bridge was away: Chromium and noVNC
  // log the refused reconnections (the page then reconnected, checked above).
  const relevant = consoleErrors.filter((text) =>
    !/favicon/.test(text) &&
    !/^WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/websockify\?token=[^']*' failed/.test(text) &&
    !/^Failed when connecting: Connection closed \(code: 1006\)/.test(text));
  expect(relevant.length === 0, `no console errors (${relevant.join(" | ")})`);

  // A server without checkpoints (the process backend): no tab.
  bare = await startHttpHost(command, ["--backend", "process", "--scratch-root", scratch],
                             { COMPUTER_ID: `${computerId}-none`, DESKTOP_ENVIRONMENT: "false" });
  const other = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await other.goto(`${bare.origin}/dashboard.html`);
  expect(await waitFor(async () => (await textOf(other, "#state")) === "running", 60),
         `a server without checkpoints: the page runs (${await textOf(other, "#state")})`);
  await sleep(2000);
  expect(await other.isHidden("#tab-checkpoints") && (await other.isVisible("#tab-files")),
         "and shows no Checkpoints tab");
  await other.close();
} catch (caught) {
  error = caught;
} finally {
  await browser?.close().catch(() => undefined);
  await agent?.close().catch(() => undefined);
  await stopHost(host?.process);
  await stopHost(bare?.process);
  removeComputer(engine, computerId);
  spawnSync(engine, ["rm", "-f", `${containerOf(computerId)}.replaced`], { stdio: "ignore" });
  removeImages();
  rmSync(scratch, { recursive: true, force: true });
}
finish(error);
