// desktop_tools_bench.mjs — MCP round trips of the desktop tools on a live desktop, through the
// official MCP client over stdio (run by desktop.sh --tools). Prints Markdown rows.
//
//   node desktop_tools_bench.mjs <host> [host arguments...] [--runs N] [--engine docker|podman]
//
// Each row: `runs` calls after 3 warm-up calls, the time from callTool() to its answer.
// look_at_screen is timed for the PNG alone (full size and max_edge 1024) and for the
// accessibility snapshot alone; type types 100 characters (delay_ms 0) into Mousepad.
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
const runs = Number(take("--runs", "30"));
const engine = take("--engine", "docker");
const [command, ...hostArgs] = argv;
const computerId = `bench-desktop-tools-${engine}`;

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
};
const client = new Client({ name: "vc-desktop-tools-bench", version: "1.0.0" }, { capabilities: {} });
await client.connect(new StdioClientTransport({
  command, args: hostArgs, stderr: "ignore",
  env: { ...process.env, COMPUTER_ID: computerId, DESKTOP_ENVIRONMENT: "true" },
}));
async function call(name, args = {}) {
  const answer = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  if (answer.isError) throw new Error(`${name}: ${JSON.stringify(answer.structuredContent)}`);
  return answer;
}
async function time(label, name, args, target) {
  for (let i = 0; i < 3; i += 1) await call(name, args);
  const samples = [];
  for (let i = 0; i < runs; i += 1) {
    const start = process.hrtime.bigint();
    await call(name, args);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  console.log(`| ${label} | ${runs} | **${percentile(samples, 0.5).toFixed(1)}** | ` +
              `${Math.min(...samples).toFixed(1)} | ${percentile(samples, 0.9).toFixed(1)} | ${target} |`);
}

try {
  await call("computer_ui");
  // The panel is up once the snapshot lists it.
  for (let i = 0; i < 120; i += 1) {
    const seen = await call("look_at_screen", { include_image: false });
    if (JSON.stringify(seen.structuredContent).includes("xfce4-panel")) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const mousepad = (await call("launch", { target: "mousepad" })).structuredContent.window;
  await call("switch_window", { window: mousepad.window_id });
  console.log(`engine: ${engine}`);
  console.log("");
  console.log("| tool call (MCP round trip) | runs | median ms | min ms | p90 ms | target ms |");
  console.log("|---|---|---|---|---|---|");
  await time("look_at_screen, PNG 1280x800", "look_at_screen", { include_accessibility: false }, "150");
  await time("look_at_screen, PNG max_edge 1024", "look_at_screen",
             { include_accessibility: false, max_edge: 1024 }, "150");
  await call("look_at_screen", { include_accessibility: false });  // back to full-size coordinates
  await time("look_at_screen, accessibility snapshot only", "look_at_screen", { include_image: false }, "300");
  await time("click (left, once)", "click", { x: 640, y: 500 }, "100");
  await time("type, 100 characters (default delay_ms 2)", "type", { text: "abcdefghij".repeat(10) }, "500");
  await time("type, 20 CJK and accented characters", "type", { text: "日本語のテキスト、ありがとう。Grüße" }, "–");
  await time("press_keys ctrl+a", "press_keys", { keys: "ctrl+a" }, "–");
  await time("list_windows", "list_windows", {}, "–");
  await time("cursor_position", "cursor_position", {}, "–");
} finally {
  try { await call("computer_delete", { computer_id: computerId }); } catch {}
  await client.close();
}
