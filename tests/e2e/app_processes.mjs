// The MCP App's processes, in the terminal tab of the standalone page: the real host over HTTP
// with a token and a real Docker desktop computer; Debian's Chromium opens /dashboard.html.
// The agent (the official TypeScript client) starts a process that prints a line every 0.2 s
// and a bash in a terminal; the page lists both, shows the first one's output growing in its
// terminal (xterm.js), and the agent's own process_read still returns every line the page
// showed (the page reads from offsets). Typing into the bash does nothing while the page only
// watches; with control taken, a command typed in the page's terminal runs (its output is in
// the process's log file, read with `docker exec`, and in the agent's next read). Kill asks in
// the page first and ends the process. A server without processes (the process backend) shows
// no processes part. Screenshots go to $VC_ARTIFACT_DIR/app-processes-*.png.
//
// Usage: node app_processes.mjs <host binary> [host arguments...]
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  containerOf, engineOf, expect, finish, launchBrowser, removeComputer, screenshot, sleep,
  startHttpHost, stopHost, textOf, waitFor,
} from "./app_support.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node app_processes.mjs <host binary> [arguments...]");
  process.exit(2);
}
const computerId = process.env.COMPUTER_ID ?? "e2e-app-processes";
const engine = engineOf(args);
const token = randomBytes(24).toString("hex");
const PRINTER = "i=0; while :; do echo line $i; i=$((i+1)); sleep 0.2; done";

// A file in the computer, read by the engine.
function fileInComputer(path) {
  const read = spawnSync(engine, ["exec", containerOf(computerId), "cat", path], { encoding: "utf8" });
  return read.status === 0 ? read.stdout : `(exit ${read.status}: ${read.stderr.trim()})`;
}

// "line 0\nline 1\n..." → [0, 1, ...]; null when the lines are not consecutive from `first`.
function lineNumbers(text) {
  return [...text.matchAll(/^line (\d+)$/gm)].map((match) => Number(match[1]));
}
function consecutive(numbers, first) {
  return numbers.every((number, index) => number === first + index);
}

removeComputer(engine, computerId);
let host;
let bare;
let browser;
let agent;
let error;
const scratch = mkdtempSync(join(tmpdir(), "vc-app-processes-"));
try {
  // A host folder mounted read-only into the computer: the Files tab offers it.
  const hostFolder = join(scratch, "from-host");
  mkdirSync(hostFolder);
  writeFileSync(join(hostFolder, "made-on-the-host.txt"), "host file\n");
  host = await startHttpHost(command, [...args, "--auth-token", token,
                                       "--mount", `${hostFolder}:/mnt/from-host:ro`],
                             { COMPUTER_ID: computerId, DESKTOP_ENVIRONMENT: "true" });
  const { origin } = host;

  // The agent: the official TypeScript client, with the token.
  agent = new Client({ name: "vc-e2e-app-processes", version: "1.0.0" }, { capabilities: {} });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }));
  const call = async (name, argumentsObject = {}) => {
    const answer = await agent.callTool({ name, arguments: argumentsObject }, undefined, { timeout: 600_000 });
    if (answer.isError) throw new Error(`${name} failed: ${JSON.stringify(answer.content)}`);
    return answer.structuredContent ?? {};
  };
  const tools = (await agent.listTools()).tools;
  const names = tools.map((tool) => tool.name);
  const appTools = ["process_output", "process_input", "process_signal"];
  expect(appTools.every((name, i) => names.indexOf(name) === names.indexOf("process_list") + 1 + i),
         `tools/list: ${appTools.join(", ")} right after process_list (${names.join(",")})`);
  expect(appTools.every((name) =>
    JSON.stringify(tools.find((tool) => tool.name === name)?._meta?.ui?.visibility) === '["app"]'),
         "process_output, process_input and process_signal are the App's only (_meta.ui.visibility: [\"app\"])");
  expect(["process_start", "process_read", "process_write", "process_kill", "process_list"]
    .every((name) => tools.find((tool) => tool.name === name && tool._meta?.ui?.visibility === undefined)),
         "the five process tools are the model's");

  const ui = await call("computer_ui");
  expect(ui.computer_id === computerId && typeof ui.desktop_url === "string", "computer_ui: a desktop computer");

  // The agent's two processes: a line printer, and a bash in a terminal.
  const printer = await call("process_start", { command: PRINTER, wait_ms: 500 });
  expect(printer.process_id && printer.running === true && /^line 0\n/.test(printer.stdout),
         `process_start: the printer runs (${printer.process_id}, ${JSON.stringify(printer.stdout)})`);
  let agentPrinterText = printer.stdout;
  const shell = await call("process_start", { args: ["bash", "--norc", "--noprofile"], env: { PS1: "pty$ " },
                                              pty: true, wait_ms: 1000 });
  expect(shell.process_id && shell.running === true && shell.pty === true,
         `process_start: bash in a terminal (${shell.process_id}, ${JSON.stringify(shell.output)})`);
  let agentShellText = shell.output ?? "";

  browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const consoleErrors = [];
  page.on("console", (message) => { if (message.type() === "error") consoleErrors.push(message.text()); });
  page.on("pageerror", (problem) => consoleErrors.push(String(problem)));
  await page.goto(`${origin}/dashboard.html#token=${token}`);
  expect(await waitFor(async () => (await textOf(page, "#state")) === "running", 60),
         `the page shows the computer running (${await textOf(page, "#state")})`);
  await page.click("#tab-terminal");
  const rows = () => page.evaluate(() =>
    [...document.querySelectorAll("#process-list li")].map((item) => ({
      id: item.dataset.id, state: item.dataset.state, text: item.textContent,
    })));
  const listed = await waitFor(async () => {
    const shown = await rows();
    return shown.length === 2 ? shown : false;
  }, 30);
  expect(listed && listed[0].id === shell.process_id && listed[1].id === printer.process_id,
         `the terminal tab lists both processes, newest first (${JSON.stringify(await rows())})`);
  const printerRow = (listed || []).find((row) => row.id === printer.process_id)?.text ?? "";
  expect(printerRow.includes(PRINTER) && printerRow.includes("running") && /\d+:\d\d/.test(printerRow),
         `a row has the id, the command, "running" and when it started (${printerRow})`);
  expect((await textOf(page, "#process-count")) === "2 · 2 running", `the count says 2 · 2 running (${await textOf(page, "#process-count")})`);

  // The printer's output, live, in the page's terminal.
  const shownText = () => page.evaluate(() => window.virtualComputer.processText());
  await page.click(`#process-list li[data-id='${printer.process_id}'] button`);
  const first = await waitFor(async () => {
    const text = await shownText();
    return lineNumbers(text).length >= 10 ? text : false;
  }, 20);
  const firstNumbers = lineNumbers(first || "");
  expect(first && firstNumbers[0] === 0 && consecutive(firstNumbers, 0),
         `the terminal shows the printer's lines from line 0 on (${firstNumbers.length} lines)`);
  expect(await page.isVisible("#process-terminal .xterm-rows"), "in xterm.js (its rows are in the page)");
  await sleep(2000);
  const later = await shownText();
  const laterNumbers = lineNumbers(later);
  expect(consecutive(laterNumbers, 0) && laterNumbers.length >= firstNumbers.length + 5,
         `2 s later it shows more (${firstNumbers.length} → ${laterNumbers.length} lines)`);
  const rowText = await page.evaluate(() => [...document.querySelectorAll("#process-terminal .xterm-rows > div")]
    .map((row) => row.textContent).join("\n"));
  expect(/line \d+/.test(rowText), "the terminal's rows show the lines");
  expect((await textOf(page, "#process-note")).includes("output only"),
         `the note says a pipe process only shows output (${await textOf(page, "#process-note")})`);
  await screenshot(page, "processes-printer");

  // The page read from offsets: the agent's own read goes on where its last read stopped and
  // returns every line the page showed.
  const read = await call("process_read", { process_id: printer.process_id, wait_ms: 0 });
  agentPrinterText += read.stdout;
  const agentNumbers = lineNumbers(agentPrinterText);
  const pageNumbers = lineNumbers(await shownText());
  expect(consecutive(agentNumbers, 0) && agentNumbers.length >= laterNumbers.length,
         `the agent's process_read still gets every line, none taken by the page ` +
         `(agent: 0..${agentNumbers.at(-1)}, page: 0..${pageNumbers.at(-1)})`);
  expect(!read.stdout_dropped, "and nothing was dropped");

  // The bash in a terminal: watch only first.
  await page.click(`#process-list li[data-id='${shell.process_id}'] button`);
  expect(await waitFor(async () => (await shownText()).includes("pty$"), 15),
         `the bash's prompt appears in the page's terminal (${JSON.stringify(await shownText())})`);
  expect((await textOf(page, "#process-note")).includes("watch only"),
         `watch only: the note says to take control (${await textOf(page, "#process-note")})`);
  const log = shell.log_paths?.output;
  agentShellText += (await call("process_read", { process_id: shell.process_id, wait_ms: 0 })).output ?? "";
  await page.click("#process-terminal");
  await page.keyboard.type("echo not-sent");
  await page.keyboard.press("Enter");
  await sleep(1500);
  expect(typeof log === "string" && !fileInComputer(log).includes("not-sent"),
         "typing without control sends nothing (the log file in the computer has no not-sent)");

  // Take control, then type a command into bash in the page's terminal.
  expect(await waitFor(async () => !(await page.isDisabled("#control-button")), 60),
         "Take control can be pressed");
  await page.click("#control-button");
  expect(await waitFor(async () => (await textOf(page, "#process-note")).includes("you have control"), 5),
         `with control, the note says typing reaches the process (${await textOf(page, "#process-note")})`);
  await page.click("#process-terminal");
  await page.keyboard.type("echo typed-in-app");
  await page.keyboard.press("Enter");
  const logged = await waitFor(() => {
    const text = fileInComputer(log);
    return /(^|[\r\n])typed-in-app\r?\n/.test(text) ? text : false;
  }, 15);
  expect(logged, `docker exec: the process's log file shows the command ran ` +
                 `(${JSON.stringify(fileInComputer(log).slice(-200))})`);
  expect(await waitFor(async () => /(^|\n)typed-in-app(\n|$)/.test(await shownText()), 10),
         `the page's terminal shows its output (${JSON.stringify((await shownText()).slice(-200))})`);
  await page.keyboard.type("printf 'ctrl-c next\\n'; sleep 30");
  await page.keyboard.press("Enter");
  await sleep(500);
  await page.keyboard.press("Control+C");
  await page.keyboard.type("echo after-ctrl-c");
  await page.keyboard.press("Enter");
  expect(await waitFor(() => /(^|[\r\n])after-ctrl-c\r?\n/.test(fileInComputer(log)), 15),
         "Ctrl-C in the page's terminal interrupts the sleep (the next command runs at once)");
  await sleep(500);
  await screenshot(page, "processes-typed");

  // The agent reads bash's output afterwards: everything, the output of every command typed in
  // the page included (the page types with process_input, which takes its output from the
  // page's own offsets).
  const shellRead = await call("process_read", { process_id: shell.process_id, wait_ms: 500 });
  agentShellText += shellRead.output ?? "";
  expect(/(^|[\r\n])after-ctrl-c\r?\n/.test(agentShellText) && /(^|[\r\n])typed-in-app\r?\n/.test(agentShellText),
         `the agent's process_read gets the output of every command typed in the page ` +
         `(${JSON.stringify(agentShellText.slice(-300))})`);

  // Release control: the terminal only shows again.
  await page.click("#control-button");
  await page.click("#process-terminal");
  await page.keyboard.type("echo released-not-sent");
  await page.keyboard.press("Enter");
  await sleep(1500);
  expect(!fileInComputer(log).includes("released-not-sent"), "after releasing control, typing sends nothing");

  // Kill the printer, after the page's question.
  await page.click(`#process-list li[data-id='${printer.process_id}'] button`);
  await page.click("#process-kill");
  expect(await waitFor(async () => page.isVisible("#process-confirm[role=alertdialog]"), 5) &&
         (await textOf(page, "#process-confirm-title")) === `Kill ${printer.process_id}?` &&
         (await page.evaluate(() => document.activeElement?.id)) === "process-confirm-no",
         "Kill asks first, naming the process, with Cancel focused");
  await page.keyboard.press("Escape");
  expect(await waitFor(async () => !(await page.isVisible("#process-confirm")), 3) &&
         (await call("process_list")).processes.find((item) => item.process_id === printer.process_id)?.running === true,
         "Escape closes the question and the printer still runs");
  await page.click("#process-kill");
  await screenshot(page, "processes-kill-question");
  await page.click("#process-confirm-yes");
  expect(await waitFor(async () => /ended \(exit 143 · TERM\)/.test(await textOf(page, "#process-status")), 15),
         `the status says the printer ended (${await textOf(page, "#process-status")})`);
  const after = (await call("process_list")).processes.find((item) => item.process_id === printer.process_id);
  expect(after?.state === "exited" && after.signal === "TERM", `process_list: the printer exited on TERM (${JSON.stringify(after)})`);
  expect(await waitFor(async () => (await rows()).find((row) => row.id === printer.process_id)?.text.includes("exit 143"), 10),
         "its row says exit 143 · TERM");
  expect(await page.isHidden("#process-kill"), "an ended process has no Kill button");

  // The Files tab offers the mounted host folder, and opens it.
  await page.click("#tab-files");
  expect(await waitFor(async () => (await textOf(page, "#files-mounts")).includes("/mnt/from-host (read-only)"), 15),
         `the Files tab offers the host folder (${await textOf(page, "#files-mounts")})`);
  await page.click("#files-mounts button.mount");
  expect(await waitFor(async () => (await textOf(page, "#files-list")).includes("made-on-the-host.txt"), 15),
         `opening it lists the host's file (${await textOf(page, "#files-list")})`);
  await screenshot(page, "processes-files-mount");

  const relevant = consoleErrors.filter((text) =>
    !/favicon/.test(text) &&
    !/^WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/websockify\?token=[^']*' failed/.test(text));
  expect(relevant.length === 0, `no console errors (${relevant.join(" | ")})`);
  await call("process_kill", { process_id: shell.process_id, signal: "KILL" });

  // A server without processes (the process backend): no processes part.
  bare = await startHttpHost(command, ["--backend", "process", "--scratch-root", scratch],
                             { COMPUTER_ID: `${computerId}-none`, DESKTOP_ENVIRONMENT: "false" });
  const other = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await other.goto(`${bare.origin}/dashboard.html`);
  expect(await waitFor(async () => (await textOf(other, "#state")) === "running", 60),
         `a server without processes: the page runs (${await textOf(other, "#state")})`);
  await other.click("#tab-terminal");
  await sleep(2000);
  expect(await other.isHidden("#processes") && (await other.isVisible("#terminal-form")),
         "and its terminal tab has no processes part");
  await other.close();
} catch (caught) {
  error = caught;
} finally {
  await browser?.close().catch(() => undefined);
  await agent?.close().catch(() => undefined);
  await stopHost(host?.process);
  await stopHost(bare?.process);
  removeComputer(engine, computerId);
  rmSync(scratch, { recursive: true, force: true });
}
finish(error);
