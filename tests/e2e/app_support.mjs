// What the MCP App's browser tests share: checks that count, the HTTP host started on an
// ephemeral port, Debian's Chromium, screenshots, and reading the desktop canvas.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const artifacts = process.env.VC_ARTIFACT_DIR ?? "artifacts";
mkdirSync(artifacts, { recursive: true });

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const failures = [];
let passed = 0;
export function expect(condition, what) {
  if (condition) passed += 1;
  else failures.push(what);
  console.log(`${condition ? "ok  " : "FAIL"} ${what}`);
  return Boolean(condition);
}

// Prints the summary and exits 0 only when every check passed.
export function finish(error) {
  if (error) {
    failures.push(`unexpected error: ${error.stack ?? error}`);
    console.log(`FAIL unexpected error: ${error.stack ?? error}`);
  }
  console.log(`\n${passed} passed, ${failures.length} failed`);
  for (const failure of failures) console.log(`  - ${failure}`);
  process.exit(failures.length === 0 ? 0 : 1);
}

// Polls `probe` (real time) until it returns a truthy value or `seconds` pass; returns the
// last value.
export async function waitFor(probe, seconds, everyMs = 250) {
  const deadline = Date.now() + seconds * 1000;
  let value;
  do {
    try {
      value = await probe();
    } catch {
      value = undefined;
    }
    if (value) return value;
    await sleep(everyMs);
  } while (Date.now() < deadline);
  return value;
}

// The engine's name of a computer (the original's container naming).
export function containerOf(computerId) {
  return `kilntainer-${computerId}`;
}

export function engineOf(args) {
  if (args.includes("kubernetes")) return "kubernetes";
  return args.includes("podman") ? "podman" : "docker";
}

export function removeComputer(engine, computerId) {
  spawnSync(engine, ["rm", "-f", containerOf(computerId)], { stdio: "ignore" });
}

export function engineExec(engine, computerId, script) {
  return spawnSync(engine, ["exec", "-u", "computer", containerOf(computerId), "sh", "-c", script],
                   { encoding: "utf8" });
}

// Starts the host over HTTP on an ephemeral port; resolves with {process, origin}.
export async function startHttpHost(command, args, env) {
  const host = spawn(command, [...args, "--transport", "http", "--port", "0"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "pipe"],
  });
  const origin = await new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`the host did not start:\n${log}`)), 60_000);
    host.stderr.on("data", (chunk) => {
      process.stderr.write(chunk);
      log += chunk;
      const match = log.match(/serving MCP over HTTP on (http:\/\/[^\s/]+)\/mcp/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    host.on("exit", (code) => reject(new Error(`the host exited with ${code}:\n${log}`)));
  });
  return { process: host, origin };
}

export async function stopHost(host) {
  if (!host || host.exitCode !== null) return;
  const exited = new Promise((resolve) => host.once("exit", resolve));
  host.kill("SIGTERM");
  await Promise.race([exited, sleep(10_000)]);
  if (host.exitCode === null) host.kill("SIGKILL");
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-domain-reliability", "--no-pings", "--autoplay-policy=no-user-gesture-required",
           "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
  });
}

// `options`: Playwright's, e.g. {fullPage: true} for a page taller than its viewport.
export async function screenshot(page, name, options = {}) {
  const path = join(artifacts, `app-${name}.png`);
  await page.screenshot({ ...options, path });
  console.log(`screenshot: ${path}`);
}

// How many colours a coarse sample of the App's desktop canvas holds, and its size, read
// inside `frame` (a Page or a Frame) through the App's diagnostics.
export async function describeCanvas(frame) {
  return frame.evaluate(() => {
    const canvas = window.virtualComputer?.canvas();
    if (!canvas || canvas.width === 0) return { width: 0, height: 0, colours: 0 };
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
    return { width, height, colours: colours.size };
  });
}

// Text of the App's element `selector` in `frame`.
export async function textOf(frame, selector) {
  return frame.evaluate((query) => document.querySelector(query)?.textContent ?? "", selector);
}
