// desktop_bench.mjs — times what a person waits for on a desktop computer, through the official
// MCP client and a real browser (run by desktop.sh, which installs both). Prints Markdown rows.
//
//   node desktop_bench.mjs <host> [host arguments...] [--runs N] [--engine docker|podman|kubernetes]
//
// visible: computer_ui on a computer that does not exist yet (DESKTOP_ENVIRONMENT=true, image
//   built) until Chromium shows the Xfce panel through noVNC (connected, and the panel row of
//   the framebuffer unlike the background), real time.
// Xfce on / off: set_desktop_environment round trips (they return once the panel and desktop
//   are mapped, or every process of the session is gone).
// memory / idle CPU: the container's cgroup (memory.usage_in_bytes less cache; cpuacct.usage
//   over 30 s), Xfce off and on, nothing connected. On kubernetes that is the pod's `computer`
//   container, which the kubelet runs on the local dockerd as
//   k8s_computer_kilntainer-<id>_<namespace>_<pod uid>_<attempt> (the pod's network-guard and
//   sandbox containers are not counted).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { chromium } from "playwright-core";

const argv = process.argv.slice(2);
const [command] = argv;
const take = (flag, fallback) => {
  const at = argv.indexOf(flag);
  if (at < 0) return fallback;
  const value = argv[at + 1];
  argv.splice(at, 2);
  return value;
};
const runs = Number(take("--runs", "5"));
const engine = take("--engine", "docker");
const hostArgs = argv.slice(1);
const cli = engine === "podman" ? "podman" : "docker";

// The full id of the computer's container, whose cgroup usage() reads.
function containerOf(computerId) {
  if (engine !== "kubernetes") {
    return execFileSync(cli, ["inspect", "-f", "{{.Id}}", `kilntainer-${computerId}`]).toString().trim();
  }
  const ids = execFileSync("docker", ["ps", "-q", "--no-trunc", "-f", `name=k8s_computer_kilntainer-${computerId}_`])
    .toString().trim().split("\n").filter(Boolean);
  if (ids.length !== 1) {
    throw new Error(`expected one running container k8s_computer_kilntainer-${computerId}_* on the local dockerd, found ${ids.length}`);
  }
  return ids[0];
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const seconds = (ms) => (ms / 1000).toFixed(2);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function connect(computerId) {
  const transport = new StdioClientTransport({
    command, args: hostArgs,
    env: { ...process.env, COMPUTER_ID: computerId, DESKTOP_ENVIRONMENT: "true",
           ASAN_OPTIONS: "detect_leaks=0" },
    stderr: "ignore",
  });
  const client = new Client({ name: "vc-desktop-bench", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

async function call(client, name, args = {}) {
  const answer = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  if (answer.isError) throw new Error(`${name}: ${JSON.stringify(answer.structuredContent)}`);
  return answer.structuredContent;
}

async function panelVisible(page) {
  return page.evaluate(() => {
    if (!document.documentElement.classList.contains("noVNC_connected")) return false;
    const canvas = document.querySelector("#noVNC_container canvas");
    if (!canvas || canvas.width < 1280) return false;
    const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    const row = (y) => {
      let sum = 0;
      for (let x = 0; x < canvas.width; x += 8) {
        const i = (y * canvas.width + x) * 4;
        sum += data[i] + data[i + 1] + data[i + 2];
      }
      return sum / (canvas.width / 8);
    };
    return Math.abs(row(12) - row(400)) > 60;
  });
}

function cgroupFile(containerId, controller, file) {
  for (const base of [`/sys/fs/cgroup/${controller}/docker/${containerId}`,
                      `/sys/fs/cgroup/${controller}/machine.slice/libpod-${containerId}.scope`,
                      `/sys/fs/cgroup/${controller}/libpod_parent/libpod-${containerId}`]) {
    try { return readFileSync(`${base}/${file}`, "utf8"); } catch {}
  }
  return null;
}

async function usage(containerId) {
  const memory = Number(cgroupFile(containerId, "memory", "memory.usage_in_bytes"));
  const stat = cgroupFile(containerId, "memory", "memory.stat") ?? "";
  const cache = Number((stat.match(/^total_inactive_file (\d+)/m) ?? [0, 0])[1]);
  const cpu0 = Number(cgroupFile(containerId, "cpuacct", "cpuacct.usage"));
  await sleep(30_000);
  const cpu1 = Number(cgroupFile(containerId, "cpuacct", "cpuacct.usage"));
  return { mib: (memory - cache) / 1048576, cpuPercent: ((cpu1 - cpu0) / 30e9) * 100 };
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
});
const visible = [], on = [], off = [];
let lastId = null;
for (let run = 0; run < runs; run += 1) {
  const computerId = `bench-desktop-${process.pid}-${run}`;
  const client = await connect(computerId);
  const page = await browser.newPage({ viewport: { width: 1300, height: 860 } });
  const start = performance.now();
  const ui = await call(client, "computer_ui");
  await page.goto(ui.desktop_url);
  while (!(await panelVisible(page))) {
    if (performance.now() - start > 60_000) {
      await page.screenshot({ path: `desktop-bench-failed-${run}.png` });
      const status = await page.evaluate(
        () => `${document.documentElement.className} | ${document.getElementById("noVNC_status")?.textContent}`);
      throw new Error(`the desktop never became visible (${status}; screenshot desktop-bench-failed-${run}.png)`);
    }
    await sleep(20);
  }
  visible.push(performance.now() - start);
  await page.close();
  for (let i = 0; i < 3; i += 1) {
    let t = performance.now();
    await call(client, "set_desktop_environment", { enabled: false });
    off.push(performance.now() - t);
    t = performance.now();
    await call(client, "set_desktop_environment", { enabled: true });
    on.push(performance.now() - t);
  }
  if (run === runs - 1) {
    lastId = containerOf(computerId);
    await call(client, "set_desktop_environment", { enabled: false });
    await sleep(3000);
    var idleOff = await usage(lastId);
    await call(client, "set_desktop_environment", { enabled: true });
    await sleep(3000);
    var idleOn = await usage(lastId);
  }
  await call(client, "computer_delete", { computer_id: computerId });
  await client.close();
}
await browser.close();

console.log("| measure | median | min | max | runs |");
console.log("|---|---|---|---|---|");
const row = (name, values) => console.log(
  `| ${name} | ${seconds(median(values))} s | ${seconds(Math.min(...values))} s | ${seconds(Math.max(...values))} s | ${values.length} |`);
row("create -> Xfce panel visible in Chromium (noVNC)", visible);
row("set_desktop_environment on (Xfce mapped)", on);
row("set_desktop_environment off (session gone)", off);
console.log(`| memory, Xfce off / on (cgroup, less inactive file cache) | ${idleOff.mib.toFixed(1)} / ${idleOn.mib.toFixed(1)} MiB | | | 1 |`);
console.log(`| idle CPU over 30 s, Xfce off / on | ${idleOff.cpuPercent.toFixed(2)} / ${idleOn.cpuPercent.toFixed(2)} % of a core | | | 1 |`);
