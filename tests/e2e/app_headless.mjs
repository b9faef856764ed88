// The MCP App on a headless computer, with no token: the page says the desktop is off and
// stays useful (the terminal, the files and the activity work), shows the server's refusal
// to start Xfce on an image without it, and says so when the computer is killed from
// outside. Screenshots: $VC_ARTIFACT_DIR/app-headless-*.png.
//
// Usage: node app_headless.mjs <host binary> [host arguments...]
import { spawnSync } from "node:child_process";
import {
  containerOf, engineOf, expect, finish, launchBrowser, removeComputer, screenshot,
  startHttpHost, stopHost, textOf, waitFor,
} from "./app_support.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node app_headless.mjs <host binary> [arguments...]");
  process.exit(2);
}
const computerId = process.env.COMPUTER_ID ?? "e2e-app-headless";
const engine = engineOf(args);

removeComputer(engine, computerId);
let host;
let browser;
let error;
try {
  host = await startHttpHost(command, args, { COMPUTER_ID: computerId });
  browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  await page.goto(`${host.origin}/dashboard.html`);
  expect(await waitFor(async () => (await textOf(page, "#state")) === "running", 120),
         `the page starts the computer and shows it running (${await textOf(page, "#state")})`);
  expect(await waitFor(async () => (await textOf(page, "#screen-title")) === "Desktop is off", 10),
         "the page says the desktop is off");
  expect(await page.isDisabled("#sound-button"), "sound is unavailable without a desktop");
  // Control is for the terminal's processes here (Podman's computers hold processes).
  expect(await waitFor(async () => !(await page.isDisabled("#control-button")), 15),
         "Take control is offered for the terminal's processes");

  await page.click("#tab-terminal");
  await page.fill("#terminal-input", "cat /etc/debian_version && echo headless-ok > /workspace/h.txt");
  await page.click("#terminal-run");
  expect(await waitFor(async () => (await textOf(page, "#terminal-output")).includes("[exit 0"), 30),
         "the terminal works on a headless computer");
  await page.click("#tab-files");
  await page.click("#files-form button[type=submit]");
  expect(await waitFor(async () => (await textOf(page, "#files-list")).includes("h.txt"), 15),
         "the file browser works");
  await page.click("#tab-activity");
  expect(await waitFor(async () => (await textOf(page, "#activity-list")).includes("headless-ok"), 15),
         "the page's own command is in the activity panel");

  await waitFor(async () => !(await page.isDisabled("#desktop-switch")), 15);
  await page.click("#desktop-switch");
  expect(await waitFor(async () => /cannot start Xfce/i.test(await textOf(page, "#banner")), 60),
         `switching the desktop on is refused with the server's reason (${await textOf(page, "#banner")})`);
  expect(await waitFor(async () => !(await page.isChecked("#desktop-switch")), 10), "the switch falls back to off");
  await screenshot(page, "headless");

  // Killed from outside: the page says the computer stopped.
  spawnSync(engine, ["kill", containerOf(computerId)], { stdio: "ignore" });
  expect(await waitFor(async () => (await textOf(page, "#state")) === "stopped", 60),
         `a computer killed from outside shows as stopped (${await textOf(page, "#state")})`);
  expect((await textOf(page, "#banner")).includes("stopped unexpectedly"), `and the page says what happened (${await textOf(page, "#banner")})`);
  await screenshot(page, "headless-died");
} catch (caught) {
  error = caught;
} finally {
  await browser?.close().catch(() => undefined);
  await stopHost(host?.process);
  removeComputer(engine, computerId);
}
finish(error);
