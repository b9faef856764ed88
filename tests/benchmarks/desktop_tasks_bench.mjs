// desktop_tasks_bench.mjs — scripted agent tasks on a live desktop, run the way a model drives
// it step by step (one call per action, a look after each step that needs one) and as
// desktop_actions batches (one call per turn, a screenshot at its end) — the editor and its save
// dialog, a menu found in the accessibility tree, a file copied in the file manager, the browser
// on a local page; plus what settling
// costs per input action and what an accessibility snapshot costs as windows pile up (run by
// desktop.sh --tasks). Prints Markdown.
//
//   node desktop_tasks_bench.mjs <host> [host arguments...] [--runs N] [--engine docker|podman]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const take = (flag, fallback) => {
  const at = argv.indexOf(flag);
  if (at < 0) return fallback;
  const value = argv[at + 1];
  argv.splice(at, 2);
  return value;
};
const runs = Number(take("--runs", "5"));
const engine = take("--engine", "docker");
const [command, ...hostArgs] = argv;
const computerId = `bench-desktop-tasks-${engine}`;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const client = new Client({ name: "vc-desktop-tasks-bench", version: "1.0.0" }, { capabilities: {} });
await client.connect(new StdioClientTransport({
  command, args: hostArgs, stderr: "ignore",
  env: { ...process.env, COMPUTER_ID: computerId, DESKTOP_ENVIRONMENT: "true" },
}));

// Every call of a task goes through here: counted, and the image bytes it returned summed.
let calls = 0;
let imageBytes = 0;
async function call(name, args = {}) {
  calls += 1;
  const answer = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  for (const item of answer.content ?? []) {
    if (item.type === "image") imageBytes += Buffer.from(item.data, "base64").length;
  }
  if (answer.isError) throw new Error(`${name}: ${JSON.stringify(answer.structuredContent ?? answer.content).slice(0, 400)}`);
  return answer.structuredContent ?? {};
}
const shell = (commandLine) => call("terminal_execute", { command: commandLine });
async function closeAll() {
  await shell("pkill -u computer -x mousepad; pkill -u computer -f chromium; pkill -u computer -i -x thunar; true");
  await call("wait_for_screen", { until: "stable", stable_ms: 300, timeout_ms: 5000 });
}
async function measure(task, style, body) {
  const samples = [];
  let callsPerRun = 0, bytesPerRun = 0;
  for (let run = 0; run < runs; run += 1) {
    await closeAll();
    calls = 0; imageBytes = 0;
    const start = process.hrtime.bigint();
    await body(run);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    callsPerRun = calls; bytesPerRun = imageBytes;
  }
  console.log(`| ${task} | ${style} | ${callsPerRun} | **${(median(samples) / 1000).toFixed(2)}** | ` +
              `${(Math.min(...samples) / 1000).toFixed(2)} | ${(bytesPerRun / 1024).toFixed(0)} |`);
}

const editorSteps = async (run) => {
  await call("launch", { target: "mousepad" });
  await call("type", { text: "saved through the dialog\n" });
  await call("press_keys", { keys: "ctrl+s" });
  await call("look_at_screen", { include_accessibility: false });
  await call("type", { text: `/workspace/bench-steps-${run}.txt`, press_enter: true });
  await call("look_at_screen", { include_accessibility: false });
};
const editorBatch = async (run) => {
  await call("desktop_actions", { actions: [
    { action: "launch", target: "mousepad" },
    { action: "type", text: "saved through the dialog\n" },
    { action: "key", text: "ctrl+s" },
    { action: "wait", duration: 1 },
    { action: "type", text: `/workspace/bench-batch-${run}.txt` },
    { action: "key", text: "Return" },
  ] });
};
const menuSteps = async () => {
  await call("launch", { target: "mousepad" });
  const tree = await call("look_at_screen", { include_image: false });
  const file = tree.accessibility.elements.find((e) => e.role === "menu" && e.name === "File" && e.bounds);
  await call("click", { element: file.ref });
  await call("look_at_screen", { include_accessibility: false });
  await call("press_keys", { keys: "Escape" });
};
const menuBatch = async () => {
  const opened = await call("desktop_actions", { actions: [{ action: "launch", target: "mousepad" }],
                                                 observe: "accessibility" });
  const file = opened.observation.accessibility.elements.find((e) => e.role === "menu" && e.name === "File" && e.bounds);
  const b = file.bounds;
  await call("desktop_actions", { actions: [
    { action: "left_click", coordinate: [b.x + Math.round(b.width / 2), b.y + Math.round(b.height / 2)] },
    { action: "screenshot" },
    { action: "key", text: "Escape" },
  ], observe: "none" });
};
// The file manager: copy a file from one folder to another with the keyboard (select all,
// copy, go to the other folder through the location bar, paste); the copy is checked on disk.
const filesReady = async (run, style) => {
  const from = `/workspace/fm-${style}-${run}-from`;
  const to = `/workspace/fm-${style}-${run}-to`;
  await shell(`rm -rf ${from} ${to} && mkdir -p ${from} ${to} && echo copied > ${from}/note.txt && chown -R computer ${from} ${to}`);
  return { from, to };
};
const filesCopied = async (to) => {
  const seen = await shell(`for i in $(seq 50); do [ -f ${to}/note.txt ] && exit 0; sleep 0.1; done; exit 1`);
  if (seen.exit_code !== 0) throw new Error(`the file manager did not copy note.txt into ${to}`);
};
const filesSteps = async (run) => {
  const { from, to } = await filesReady(run, "steps");
  await call("launch", { target: `thunar ${from}` });
  await call("press_keys", { keys: "ctrl+a" });
  await call("press_keys", { keys: "ctrl+c" });
  await call("press_keys", { keys: "ctrl+l" });
  await call("type", { text: to, press_enter: true });
  await call("press_keys", { keys: "ctrl+v" });
  await call("look_at_screen", { include_accessibility: false });
  await filesCopied(to);
};
const filesBatch = async (run) => {
  const { from, to } = await filesReady(run, "batch");
  await call("desktop_actions", { actions: [
    { action: "launch", target: `thunar ${from}` },
    { action: "key", text: "ctrl+a" },
    { action: "key", text: "ctrl+c" },
    { action: "key", text: "ctrl+l" },
    { action: "type", text: to },
    { action: "key", text: "Return" },
    { action: "key", text: "ctrl+v" },
  ] });
  await filesCopied(to);
};
const browserSteps = async () => {
  await call("launch", { target: "http://127.0.0.1:8765/" });
  await call("wait_for_screen", { until: "stable", stable_ms: 500, timeout_ms: 20000 });
  await call("look_at_screen", { include_accessibility: false });
};
const browserBatch = async () => {
  await call("desktop_actions", { actions: [
    { action: "launch", target: "http://127.0.0.1:8765/" },
    { action: "wait_for_screen", until: "stable", stable_ms: 500, timeout_ms: 20000 },
  ] });
};

async function timeAction(label, name, args) {
  const samples = [];
  const effects = [];
  for (let i = 0; i < 10; i += 1) {
    const start = process.hrtime.bigint();
    const out = await call(name, args);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    effects.push(out.effect);
  }
  const effect = effects.every((e) => e === effects[0]) ? String(effects[0] ?? "–") : "mixed";
  console.log(`| ${label} | **${median(samples).toFixed(0)}** | ${Math.min(...samples).toFixed(0)} | ${effect} |`);
}

try {
  await call("computer_ui");
  for (let i = 0; i < 120; i += 1) {
    const seen = await call("look_at_screen", { include_image: false });
    if (JSON.stringify(seen).includes("xfce4-panel")) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await shell("mkdir -p /tmp/site && printf '<title>Bench page</title><h1>Bench</h1>' > /tmp/site/index.html && " +
              "(setsid python3 -m http.server 8765 --bind 127.0.0.1 --directory /tmp/site >/dev/null 2>&1 &); sleep 1");
  console.log(`engine: ${engine}, ${runs} runs per task`);
  console.log("");
  console.log("| task | style | calls | median s | min s | screenshot KiB |");
  console.log("|---|---|---|---|---|---|");
  await measure("editor: type, save through the dialog", "step by step", editorSteps);
  await measure("editor: type, save through the dialog", "batch", editorBatch);
  await measure("menu found in the accessibility tree", "step by step", menuSteps);
  await measure("menu found in the accessibility tree", "batch", menuBatch);
  await measure("file manager: copy a file to another folder", "step by step", filesSteps);
  await measure("file manager: copy a file to another folder", "batch", filesBatch);
  await measure("browser to a local page", "step by step", browserSteps);
  await measure("browser to a local page", "batch", browserBatch);

  await closeAll();
  const editor = (await call("launch", { target: "mousepad" })).window;
  await call("switch_window", { window: editor.window_id });
  console.log("");
  console.log("| input action (MCP round trip) | median ms | min ms | effect |");
  console.log("|---|---|---|---|");
  await timeAction("type, 10 characters, settled", "type", { text: "abcdefghij" });
  await timeAction("type, 10 characters, settle false", "type", { text: "abcdefghij", settle: false });
  await timeAction("press_keys BackSpace, settled", "press_keys", { keys: "BackSpace" });
  await timeAction("press_keys BackSpace, settle false", "press_keys", { keys: "BackSpace", settle: false });
  await timeAction("press_keys shift (no change), settled", "press_keys", { keys: "shift" });
  await timeAction("click in the text, settled", "click", { x: 400, y: 300 });
  await timeAction("click in the text, settle false", "click", { x: 400, y: 300, settle: false });

  console.log("");
  console.log("| accessibility snapshot (look_at_screen, no image) | median ms | min ms |");
  console.log("|---|---|---|");
  await closeAll();
  await call("launch", { target: "mousepad" });
  const snapshot = async (label) => {
    const samples = [];
    for (let i = 0; i < 10; i += 1) {
      const start = process.hrtime.bigint();
      await call("look_at_screen", { include_image: false });
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    console.log(`| ${label} | **${median(samples).toFixed(0)}** | ${Math.min(...samples).toFixed(0)} |`);
  };
  await snapshot("1 application window");
  for (let i = 0; i < 9; i += 1) {
    await call("launch", { target: i % 2 === 0 ? "xfce4-terminal" : "mousepad --opening-mode=window" });
  }
  await snapshot("10 application windows");
} finally {
  try { await client.callTool({ name: "computer_delete", arguments: { computer_id: computerId } }); } catch {}
  await client.close();
}
