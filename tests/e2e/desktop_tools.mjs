// The desktop tools as an agent uses them: the official MCP TypeScript client starts the real
// host with the bundled desktop image and sees the screen, types into Mousepad, clicks, drags
// and switches windows, waits for the screen, and watches the tools disappear when the desktop
// is switched off. Every check reads the real desktop back (the PNG's pixels, the window
// list, the saved file, the pointer position), never what the tool claimed.
//
// Usage: node desktop_tools.mjs <host binary> [host arguments...]
// Environment: COMPUTER_ID; VC_ARTIFACT_DIR (screenshots, default ./artifacts).
import { inflateSync } from "node:zlib";
import { ToolListChangedNotificationSchema, ResourceListChangedNotificationSchema }
  from "@modelcontextprotocol/sdk/types.js";
import { checks, desktopSession, imageOf, sleep, waitFor } from "./desktop_session.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node desktop_tools.mjs <host binary> [arguments...]");
  process.exit(2);
}
const computerId = process.env.COMPUTER_ID ?? "e2e-desktop-tools";
const { expect, error, report } = checks();
const session = desktopSession({ command, args, computerId, clientName: "vc-desktop-tools" });
const { client, raw, call, payload, failure, windows, saveImage } = session;
let toolListChanges = 0;
let resourceListChanges = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { toolListChanges += 1; });
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => { resourceListChanges += 1; });

// --- PNG reading (8-bit RGB/RGBA, non-interlaced: what the agent writes) ---------------------
function decodePng(base64) {
  const bytes = Buffer.from(base64, "base64");
  const signature = "89504e470d0a1a0a";
  if (bytes.subarray(0, 8).toString("hex") !== signature) throw new Error("not a PNG");
  let offset = 8, width = 0, height = 0, colourType = 0;
  const idat = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.subarray(offset + 4, offset + 8).toString("ascii");
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4); colourType = data[9];
    } else if (type === "IDAT") {
      idat.push(data);
    }
    offset += 12 + length;
  }
  const channels = colourType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x += 1) {
      const left = x >= channels ? pixels[y * stride + x - channels] : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const upLeft = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels] : 0;
      let value = line[x];
      if (filter === 1) value += left;
      else if (filter === 2) value += up;
      else if (filter === 3) value += (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left), pb = Math.abs(p - up), pc = Math.abs(p - upLeft);
        value += pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      pixels[y * stride + x] = value & 0xff;
    }
  }
  const at = (x, y) => {
    const i = (y * width + x) * channels;
    return [pixels[i], pixels[i + 1], pixels[i + 2]];
  };
  const colours = new Set();
  for (let y = 0; y < height; y += 4) {
    for (let x = 0; x < width; x += 4) colours.add(at(x, y).join(","));
  }
  return { width, height, at, colours: colours.size };
}

const desktopTools = ["look_at_screen", "click", "type", "scroll", "list_windows", "switch_window",
  "move_window", "maximize_window", "restore_window", "minimize_window", "close_window",
  "press_keys", "drag", "mouse_move", "mouse_button", "cursor_position", "zoom",
  "wait_for_screen", "clipboard_read", "clipboard_write", "launch"];

try {
  await client.connect(session.transport);
  expect(client.getServerCapabilities()?.tools?.listChanged === true,
         "the server advertises tools.listChanged");
  const ui = await payload("computer_ui");
  expect(ui.desktop_environment === true && typeof ui.desktop_url === "string",
         "computer_ui: the desktop is live");
  const listed = (await client.listTools()).tools.map((tool) => tool.name);
  expect(desktopTools.every((name) => listed.includes(name)),
         `tools/list has all ${desktopTools.length} desktop tools while the desktop is live`);
  const resources = (await client.listResources()).resources.map((r) => r.uri);
  expect(resources.includes("computer://screen/current.png") &&
         resources.includes("computer://screen/accessibility.json"),
         "resources/list has the two screen resources");

  // --- seeing: an idle screen is stable, the PNG is the real screen --------------------------
  await waitFor(async () => JSON.stringify(await payload("look_at_screen",
    { include_image: false })).includes("xfce4-panel"), 60, "the panel in the snapshot");
  const idle = await payload("wait_for_screen", { until: "stable", stable_ms: 400, timeout_ms: 15000 });
  expect(idle.result === "stable", `wait_for_screen: an idle desktop is stable (${JSON.stringify(idle)})`);

  const full = await call("look_at_screen");
  const fullImage = imageOf(full);
  expect(fullImage?.mimeType === "image/png", "look_at_screen returns a PNG image");
  const shot = decodePng(fullImage.data);
  saveImage(fullImage, "full");
  expect(shot.width === 1280 && shot.height === 800, `the PNG is 1280x800 (${shot.width}x${shot.height})`);
  expect(shot.colours > 20, `the screen is not one flat colour (${shot.colours} colours)`);
  const snapshotText = full.content.find((item) => item.type === "text")?.text ?? "";
  expect(/application "xfce4-panel"/.test(snapshotText), "the snapshot text lists the Xfce panel");
  expect(full.structuredContent?.accessibility?.format === "at-spi-snapshot-v1",
         "structuredContent carries the at-spi-snapshot-v1 object");

  const scaled = await call("look_at_screen", { max_edge: 1024, include_accessibility: false });
  const scaledShot = decodePng(imageOf(scaled).data);
  saveImage(imageOf(scaled), "max-edge-1024");
  expect(scaledShot.width === 1024 && scaledShot.height === 640,
         `max_edge 1024 gives a 1024x640 PNG (${scaledShot.width}x${scaledShot.height})`);
  expect(Math.abs(scaled.structuredContent.image.scale - 0.8) < 1e-9,
         `the scale is reported (${scaled.structuredContent.image.scale})`);
  const resource = await client.readResource({ uri: "computer://screen/current.png" });
  expect(decodePng(resource.contents[0].blob).width === 1280,
         "resources/read computer://screen/current.png is the live 1280-wide PNG");

  // --- a window opening changes the screen -------------------------------------------------
  await call("terminal_execute", {
    command: "(sleep 1; su computer -c 'DISPLAY=:99 xfce4-terminal --title=opened-later' " +
             ">/dev/null 2>&1 &) >/dev/null 2>&1",
  });
  const change = await payload("wait_for_screen", { until: "change", timeout_ms: 15000 });
  expect(change.result === "changed", `wait_for_screen: a window opening is a change (${JSON.stringify(change)})`);

  // --- Mousepad: launch, type Unicode, save, read back byte-exact ---------------------------
  const text = "Grüße, café — naïve façade; 日本語のテキスト ✓ €\nsecond line: ñ ø å";
  // A person watching must see these characters, not boxes: some font of the image holds a
  // glyph for each CJK character typed here, and for Chinese and Korean text too.
  const cjk = [...new Set([...`${text}中文한국어`].filter((c) => c.codePointAt(0) >= 0x3000))];
  const charset = cjk.map((c) => c.codePointAt(0).toString(16)).join(" ");
  const covering = await payload("terminal_execute", { command: `fc-list ':charset=${charset}' family` });
  expect(covering.exit_code === 0 && covering.stdout.trim() !== "",
         `a font of the image has a glyph for each of ${cjk.join("")} (${JSON.stringify(covering.stdout.trim())})`);
  const launched = await payload("launch", { target: "mousepad" });
  expect(launched.window !== null && typeof launched.pid === "number",
         `launch mousepad returns its window (${JSON.stringify(launched.window?.title)})`);
  await payload("switch_window", { window: launched.window.window_id });
  await payload("type", { text });
  await payload("press_keys", { keys: "ctrl+s" });
  await waitFor(async () => (await windows()).some((w) => /save/i.test(w.title)), 15,
                "the save dialog");
  // The file chooser completes a typed path as it goes: let it settle before Return.
  await payload("type", { text: "/workspace/typed-by-agent.txt", clear: true });
  await payload("wait_for_screen", { until: "stable", stable_ms: 500, timeout_ms: 5000 });
  await payload("press_keys", { keys: "Return" });
  await payload("wait_for_screen", { until: "stable", stable_ms: 300, timeout_ms: 5000 });
  saveImage(imageOf(await call("look_at_screen", { include_accessibility: false })), "saved");
  const saved = await waitFor(async () => {
    const read = await raw("read_file", { path: "/workspace/typed-by-agent.txt" });
    return read.isError ? null : read.structuredContent;
  }, 20, "the saved file");
  expect(saved.content === text, `read_file returns exactly the typed text (${JSON.stringify(saved.content)})`);
  saveImage(imageOf(await call("look_at_screen", { include_accessibility: false })), "mousepad");

  // --- clicks: an element ref and scaled coordinates hit the same point ----------------------
  const snapshot = (await payload("look_at_screen", { include_image: false })).accessibility;
  const target = snapshot.elements.find((e) => e.bounds && e.role === "menu" && e.name === "File") ??
    snapshot.elements.find((e) => e.bounds && /push button|menu/.test(e.role));
  expect(target !== undefined, `the snapshot has a clickable control (${target?.role} "${target?.name}")`);
  // The menu a click opens holds the pointer until Escape closes it; each Escape is let
  // settle, so that the drag below reaches the window manager and not a closing menu.
  const closeMenu = async () => {
    await payload("press_keys", { keys: "Escape" });
    await payload("wait_for_screen", { until: "stable", stable_ms: 300, timeout_ms: 5000 });
  };
  await payload("click", { element: target.ref });
  const byRef = await payload("cursor_position");
  await closeMenu();
  await call("look_at_screen", { max_edge: 1024, include_accessibility: false });
  const cx = Math.round((target.bounds.x + target.bounds.width / 2) * 0.8);
  const cy = Math.round((target.bounds.y + target.bounds.height / 2) * 0.8);
  await payload("click", { x: cx, y: cy });
  const byScaled = await payload("cursor_position");
  await closeMenu();
  expect(Math.abs(byRef.screen_x - byScaled.screen_x) <= 2 && Math.abs(byRef.screen_y - byScaled.screen_y) <= 2,
         `click by ref (${byRef.screen_x},${byRef.screen_y}) and by scaled coordinates ` +
         `(${byScaled.screen_x},${byScaled.screen_y}) hit the same point`);
  expect(Math.abs(byScaled.x - cx) <= 1 && Math.abs(byScaled.y - cy) <= 1,
         "cursor_position answers in the scaled screenshot's space");
  await call("look_at_screen", { include_accessibility: false });  // back to full size

  // --- windows: drag, move, maximize, minimize, restore, close -----------------------------
  const terminal = await waitFor(async () => (await windows()).find((w) => w.title === "opened-later"),
                                 20, "the terminal opened earlier");
  // As the original, switch_window answers with the window as it was before; the agent
  // replies once the window manager has made it active, so the list already shows it.
  await payload("switch_window", { window: terminal.window_id });
  const before = (await windows()).find((w) => w.window_id === terminal.window_id);
  expect(before?.active === true, `switch_window makes the terminal the active window (${JSON.stringify(before)})`);
  await payload("drag", { from: { x: before.x + Math.round(before.width / 2), y: before.y + 12 },
                          to: { x: before.x + Math.round(before.width / 2) + 120, y: before.y + 12 + 70 } });
  const dragged = await waitFor(async () => {
    const now = (await windows()).find((w) => w.window_id === terminal.window_id);
    return now && (now.x !== before.x || now.y !== before.y) ? now : null;
  }, 5, "the window to move").catch(() => null);
  if (!expect(dragged !== null && Math.abs(dragged.x - before.x - 120) <= 4 &&
              Math.abs(dragged.y - before.y - 70) <= 4,
              `drag by the title bar moves the window by (120, 70): (${before.x},${before.y}) -> ` +
              `(${dragged?.x},${dragged?.y})`)) {
    console.log(`windows after the drag: ${JSON.stringify(await windows())}`);
    saveImage(imageOf(await call("look_at_screen", { include_accessibility: false })), "after-drag");
  }

  await payload("move_window", { window: terminal.window_id, x: 200, y: 150, width: 640, height: 400 });
  const moved = (await windows()).find((w) => w.window_id === terminal.window_id);
  // A terminal sizes itself in whole character cells: the window manager rounds to them.
  expect(moved.x === 200 && moved.y === 150 && Math.abs(moved.width - 640) < 20 &&
         Math.abs(moved.height - 400) < 30,
         `move_window to (200,150) 640x400: ${JSON.stringify([moved.x, moved.y, moved.width, moved.height])}`);
  await payload("maximize_window", { window: "opened-later" });
  const maximized = (await windows()).find((w) => w.window_id === terminal.window_id);
  expect(maximized.states.includes("maximized_vert") && maximized.states.includes("maximized_horz"),
         `maximize_window: states ${JSON.stringify(maximized.states)}`);
  await payload("minimize_window", { window: "opened-later" });
  const minimized = (await windows()).find((w) => w.window_id === terminal.window_id);
  expect(minimized.states.includes("hidden"), `minimize_window: states ${JSON.stringify(minimized.states)}`);
  await payload("restore_window", { window: "opened-later" });
  const restored = (await windows()).find((w) => w.window_id === terminal.window_id);
  expect(!restored.states.includes("hidden") && !restored.states.includes("maximized_vert") &&
         restored.active === true, `restore_window: states ${JSON.stringify(restored.states)}, active`);
  const closeAnswer = await payload("close_window", { window: terminal.window_id });
  expect(closeAnswer.window?.window_id === terminal.window_id, "close_window answers with the window");
  await waitFor(async () => !(await windows()).some((w) => w.window_id === terminal.window_id), 10,
                "the closed window to go");
  expect(true, "close_window: the window is gone from list_windows");

  expect((await failure("switch_window", { window: "no-such-window-zzz" })) ===
         "Window 'no-such-window-zzz' was not found.", "an unknown selector: the original's message");
  const ambiguous = await failure("switch_window", { window: "xfce" });
  expect(/^Window selector is ambiguous; use one of: 0x[0-9a-f]{8}(, 0x[0-9a-f]{8})+\.$/.test(ambiguous ?? ""),
         `an ambiguous selector: the original's message (${ambiguous})`);

  // --- clipboard --------------------------------------------------------------------------
  await payload("clipboard_write", { text: "clip: 日本 ✓" });
  expect((await payload("clipboard_read")).text === "clip: 日本 ✓", "clipboard_write then clipboard_read");

  // --- bad input: clear errors, the desktop keeps working ----------------------------------
  const outside = await failure("click", { x: 5000, y: 10 });
  expect(/outside the 1280x800 screen/.test(outside ?? ""), `off-screen click: ${outside}`);
  const negative = await failure("scroll", { amount: -3 });
  expect(/Input validation error/.test(negative ?? ""), `negative scroll amount: ${negative}`);
  const badKey = await failure("press_keys", { keys: "ctrl+nosuchkey" });
  expect(/Unknown key 'nosuchkey'/.test(badKey ?? ""), `unknown key: ${badKey}`);
  const badButton = await failure("click", { x: 10, y: 10, button: "sideways" });
  expect(/button: "sideways" is not one of \["left","middle","right"\]/.test(badButton ?? ""),
         `unknown button: the schema's enum says which (${badButton})`);
  // Runaway arguments are refused at once, and the error quotes only an excerpt of them.
  const started = Date.now();
  const hugeType = await failure("type", { text: "x".repeat(1 << 20) });
  const refusedIn = Date.now() - started;
  expect(/text: .* is too long \(1048576, at most 10000\)/.test(hugeType ?? "") &&
         hugeType.length < 400,
         `1 MB type is refused in ${refusedIn} ms with a short error (${(hugeType ?? "").length} chars: ${(hugeType ?? "").slice(0, 120)})`);
  const hugeKeys = await failure("press_keys", { keys: "a ".repeat(50000) });
  expect(/keys: .* is too long \(100000, at most 1000\)/.test(hugeKeys ?? "") &&
         hugeKeys.length < 400,
         `100 KB press_keys is refused with a short error (${(hugeKeys ?? "").length} chars)`);
  // A cancelled long type really stops: what reaches the window stops growing, and the next
  // action answers at once (not after the 30 s of a busy agent). The target is a terminal whose
  // cat, without line buffering, writes every key to a file as it comes.
  await payload("terminal_execute", { command:
    "rm -f /workspace/cancel.txt; (su computer -c 'DISPLAY=:99 xfce4-terminal --title=cancel-target " +
    "-x sh -c \"stty -icanon; exec cat > /workspace/cancel.txt\"' >/dev/null 2>&1 &)" });
  const cancelTarget = await waitFor(async () => (await windows()).find((w) => w.title === "cancel-target"),
                                     20, "the cancel-target terminal");
  await payload("switch_window", { window: cancelTarget.window_id });
  const cancel = new AbortController();
  const longType = client.callTool({ name: "type", arguments: { text: "y".repeat(9000), delay_ms: 20 } },
                                   undefined, { signal: cancel.signal, timeout: 600_000 })
    .then(() => ({ aborted: undefined }), (error) => ({ aborted: String(error?.message ?? error) }));
  await sleep(1500);
  cancel.abort();
  const cancelled = await longType;
  const cancelledAt = Date.now();
  const answered = decodePng(imageOf(await call("look_at_screen", { include_accessibility: false })).data);
  const answerMs = Date.now() - cancelledAt;
  expect(cancelled.aborted !== undefined && answered.width === 1280 && answerMs < 10_000,
         `after a cancelled type the next action answers in ${answerMs} ms`);
  const typedBytes = async () =>
    Number((await payload("terminal_execute", { command: "wc -c < /workspace/cancel.txt" })).stdout);
  const first = await typedBytes();
  await sleep(2000);
  const second = await typedBytes();
  expect(first > 0 && first < 9000 && second === first,
         `the cancelled typing stopped (${first} then ${second} characters reached the window)`);
  await payload("close_window", { window: cancelTarget.window_id });
  const empty = await failure("type", { text: "" });
  expect(/must not be empty/.test(empty ?? ""), `empty text: ${empty}`);
  const stale = await failure("click", { element: "atspi:77/77/77" });
  expect(stale === "Accessibility element 'atspi:77/77/77' is no longer available.", `stale ref: ${stale}`);
  const notRef = await failure("click", { element: "button-1" });
  expect(notRef === "Element references must start with 'atspi:'.", `not a ref: ${notRef}`);
  const neither = await failure("click", {});
  expect(neither === "Provide either element or both x and y coordinates.", `no target: ${neither}`);
  const afterBad = decodePng(imageOf(await call("look_at_screen", { include_accessibility: false })).data);
  expect(afterBad.width === 1280, "after the bad input the desktop still answers");

  // --- terminal_execute: the same results with the desktop live and off -------------------
  const execCases = [
    { command: "printf 'out\\n'; printf 'err\\n' >&2; exit 3" },
    { command: "cat; echo", stdin: "from stdin ✓" },
    { args: ["/bin/sh", "-c", "echo argv $0", "zero"] },
    { command: "sleep 30; echo never", timeout: 1 },
    { command: "head -c 3000000 /dev/zero | tr '\\0' x" },  // over the 2 MiB output limit
    { command: "pwd", working_directory: "/tmp" },
  ];
  const comparable = (answer) => {
    const { exec_duration_ms, desktop_url, desktop_environment, ...rest } = answer.structuredContent ?? {};
    return JSON.stringify({ isError: answer.isError ?? false, ...rest });
  };
  const liveResults = [];
  for (const each of execCases) liveResults.push(comparable(await raw("terminal_execute", each)));
  const leftOver = await payload("terminal_execute", { command: "pgrep -x sleep || true" });
  expect(leftOver.stdout === "", `the timed-out command left nothing running (${JSON.stringify(leftOver.stdout)})`);
  saveImage(imageOf(await call("look_at_screen", { include_accessibility: false })), "visible-terminal");
  const shownText = JSON.stringify(await payload("look_at_screen", { include_image: false }));
  expect(shownText.includes("MCP Terminal"), "the commands are shown in the MCP Terminal window");

  // --- the tools follow the desktop ------------------------------------------------------
  const changesBefore = toolListChanges;
  await payload("set_desktop_environment", { enabled: false });
  expect(toolListChanges > changesBefore && resourceListChanges > 0,
         "switching the desktop off sends tools/list_changed and resources/list_changed");
  const withoutDesktop = (await client.listTools()).tools.map((tool) => tool.name);
  expect(!withoutDesktop.includes("click") && !withoutDesktop.includes("look_at_screen"),
         "tools/list has no desktop tools while the desktop is off");
  const unknown = await failure("click", { x: 1, y: 1 });
  expect(/Unknown tool: click/.test(unknown ?? ""), `calling a removed tool: ${unknown}`);
  const headlessResults = [];
  for (const each of execCases) headlessResults.push(comparable(await raw("terminal_execute", each)));
  execCases.forEach((each, i) => {
    expect(liveResults[i] === headlessResults[i],
           `terminal_execute ${JSON.stringify(each)} gives the same result live and headless: ` +
           `${liveResults[i]}${liveResults[i] === headlessResults[i] ? "" : " vs " + headlessResults[i]}`);
  });
  await payload("set_desktop_environment", { enabled: true });
  const withDesktop = (await client.listTools()).tools.map((tool) => tool.name);
  expect(withDesktop.includes("click") && toolListChanges >= changesBefore + 2,
         "switching it on brings the tools back, with another list_changed");
} catch (caught) {
  error(caught);
} finally {
  await session.close();
}
report();
