// The desktop as an agent really uses it: sequences of calls as a model makes them, with no
// waits of its own between them, each checked by other means (the saved file read back, the
// window list, a screenshot kept as an artifact):
// - type a name and press Return in a save dialog: the file is saved;
// - paste, then save: the saved file holds the pasted text;
// - the focus stays in the agent's window across terminal_execute and write_file, whose
//   replays show what they did without taking it;
// - launch of a file the agent just wrote gives a window in which it can edit and save it;
// - launch of an application that opens a tab in its existing window returns that window;
// - an input that changes nothing says so (effect), act-and-observe returns the screen;
// - desktop_actions: a real task in one call in the computer-use vocabulary; a batch with an
//   invalid step runs nothing; a failing step stops the batch there;
// - the browser of the image shows a page the agent serves from terminal_execute.
//
// Usage: node desktop_workflows.mjs <host binary> [host arguments...]
// Environment: COMPUTER_ID; VC_ARTIFACT_DIR (screenshots, default ./artifacts).
import { checks, desktopSession, imageOf, waitFor } from "./desktop_session.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node desktop_workflows.mjs <host binary> [arguments...]");
  process.exit(2);
}
const computerId = process.env.COMPUTER_ID ?? "e2e-desktop-workflows";
const { expect, error, report } = checks();
const session = desktopSession({ command, args, computerId, clientName: "vc-desktop-workflows" });
const { client, raw, call, payload, windows, saveImage } = session;

// The file's content as the computer has it (a command, not the desktop).
async function fileOnDisk(path) {
  const answer = await payload("terminal_execute", { command: `cat -- '${path}' 2>/dev/null || echo '<missing>'` });
  return answer.stdout;
}
async function activeWindow() {
  return (await windows()).find((w) => w.active) ?? null;
}
async function look(name) {
  const shot = await call("look_at_screen", { include_accessibility: false });
  saveImage(imageOf(shot), name);
}

try {
  await client.connect(session.transport);
  const ui = await payload("computer_ui");
  expect(ui.desktop_environment === true, "the desktop is live");
  await waitFor(async () => JSON.stringify(await payload("look_at_screen", { include_image: false }))
    .includes("xfce4-panel"), 60, "the panel");
  await payload("terminal_execute", { command: "rm -rf /workspace/flow && mkdir -p /workspace/flow && chown 1000:1000 /workspace/flow" });

  // --- type + Return in a save dialog saves ---------------------------------------------
  const editor = await payload("launch", { target: "mousepad" });
  expect(editor.window !== null, `launch mousepad gives its window (${editor.window?.title})`);
  const editorId = editor.window.window_id;
  const typed = await payload("type", { text: "first line\n" });
  expect(typed.effect === true, `typing into the editor has an effect (${JSON.stringify(typed.effect)})`);
  expect(typed.coordinates === null || typeof typed.coordinates?.scale === "number",
         `an input result reports the coordinate space (${JSON.stringify(typed.coordinates)})`);
  await payload("press_keys", { keys: "ctrl+s" });
  const dialog = await waitFor(async () => (await windows()).find((w) => /save/i.test(w.title)), 15,
                               "the save dialog");
  expect(dialog !== undefined, `ctrl+s opens the save dialog (${dialog.title})`);
  // One call: the name, then Return, no waiting in between by the agent.
  await payload("type", { text: "/workspace/flow/dialog.txt", clear: true, press_enter: true });
  // The action ends when the dialog has answered: no save dialog left the moment it returns.
  const dialogsLeft = (await windows()).filter((w) => /^save/i.test(w.title)).map((w) => w.title);
  expect(dialogsLeft.length === 0, `the Return's action returned once the dialog had gone (${JSON.stringify(dialogsLeft)})`);
  const saved = await waitFor(async () => {
    const text = await fileOnDisk("/workspace/flow/dialog.txt");
    return text === "<missing>\n" ? null : text;
  }, 10, "the file the dialog saves").catch(() => "<missing>\n");
  expect(saved === "first line\n", `type + press_enter in the save dialog saves the file (${JSON.stringify(saved)})`);
  await look("after-dialog-save");

  // --- paste, then save -----------------------------------------------------------------
  await payload("clipboard_write", { text: "pasted ✓ text\n" });
  await payload("press_keys", { keys: "ctrl+End" });
  await payload("press_keys", { keys: "ctrl+v" });
  await payload("press_keys", { keys: "ctrl+s" });
  const afterPaste = await fileOnDisk("/workspace/flow/dialog.txt");
  expect(afterPaste === "first line\npasted ✓ text\n",
         `ctrl+v then ctrl+s saves the pasted text (${JSON.stringify(afterPaste)})`);

  // --- an input that changes nothing says so; act and observe --------------------------
  // Once the save has drawn all it draws (its title, its status line), a key that does
  // nothing changes nothing.
  // Something else may draw meanwhile (the panel's clock turning a minute): a quiet screen
  // is looked for up to three times, and one of the shifts must report no effect.
  const shiftEffects = [];
  for (let attempt = 0; attempt < 3 && !shiftEffects.includes(false); ++attempt) {
    await payload("wait_for_screen", { until: "stable", stable_ms: 500, timeout_ms: 5000 });
    shiftEffects.push((await payload("press_keys", { keys: "shift" })).effect);
  }
  expect(shiftEffects.includes(false) && shiftEffects.every((e) => typeof e === "boolean"),
         `a lone shift changes nothing on the screen: effect false (${JSON.stringify(shiftEffects)})`);
  const unsettled = await payload("press_keys", { keys: "shift", settle: false });
  expect(!("effect" in unsettled), "settle: false returns without effect");
  const observed = await call("press_keys", { keys: "End", observe: "screenshot" });
  const observedImage = imageOf(observed);
  expect(observedImage?.mimeType === "image/png" && observed.structuredContent?.observation?.image?.width > 0,
         `observe: screenshot returns the settled screen in the result (${JSON.stringify(observed.structuredContent?.observation?.image)})`);
  if (observedImage) saveImage(observedImage, "observed");

  // --- the focus stays where the agent put it ------------------------------------------
  await payload("switch_window", { window: editorId });
  await payload("terminal_execute", { command: "echo shown in the MCP Terminal" });
  await payload("write_file", { path: "/workspace/flow/other.txt", content: "written by the agent\n" });
  const stillActive = await activeWindow();
  expect(stillActive?.window_id === editorId,
         `after terminal_execute and write_file the editor keeps the focus (${stillActive?.title})`);
  await look("focus-kept");
  await payload("type", { text: "typed after the replays\n" });
  await payload("press_keys", { keys: "ctrl+s" });
  const afterReplays = await fileOnDisk("/workspace/flow/dialog.txt");
  expect(afterReplays.endsWith("typed after the replays\n"),
         `typing after the replays goes into the editor (${JSON.stringify(afterReplays)})`);
  const shows = (await windows()).filter((w) => w.title === "MCP Terminal" || /other\.txt/.test(w.title));
  expect(shows.length >= 2, `the terminal and the written file are still shown (${shows.map((w) => w.title).join(", ")})`);

  // --- launch of a file the agent just wrote: an editable window -----------------------
  await payload("write_file", { path: "/workspace/flow/edit-me.txt", content: "original\n" });
  const opened = await payload("launch", { target: "/workspace/flow/edit-me.txt" });
  expect(opened.window !== null && opened.writable === true,
         `launch of the written file gives a window and says it is writable (${opened.window?.title}, writable ${opened.writable})`);
  await payload("press_keys", { keys: "ctrl+End" });
  await payload("type", { text: "added by the agent\n" });
  await payload("press_keys", { keys: "ctrl+s" });
  const edited = await fileOnDisk("/workspace/flow/edit-me.txt");
  expect(edited === "original\nadded by the agent\n",
         `the launched file is edited and saved in place (${JSON.stringify(edited)})`);
  const readOnly = (await windows()).find((w) => /read-only|another file/i.test(w.title));
  expect(readOnly === undefined, `no read-only question came up (${readOnly?.title ?? "none"})`);

  // --- launch of an application that opens a tab in its existing window ----------------
  const again = await payload("launch", { target: "mousepad" });
  expect(again.window !== null, `launch mousepad while it runs returns the window it opened in (${again.window?.title})`);

  // --- desktop_actions: a real task in one call, in the models' vocabulary -------------
  await payload("switch_window", { window: editorId });
  const task = await call("desktop_actions", {
    actions: [
      { action: "key", text: "ctrl+n" },
      { action: "type", text: "written in one batch\n" },
      { action: "key", text: "ctrl+s" },
      { action: "wait", duration: 1 },
      { action: "type", text: "/workspace/flow/batch.txt" },
      { action: "key", text: "Return" },
    ],
  });
  const taskResult = task.structuredContent;
  expect(taskResult.ok === true && taskResult.steps.length === 6 &&
         taskResult.steps.every((s, i) => s.step === i + 1 && s.ok === true),
         `the batch ran its six steps, one result each (${JSON.stringify(taskResult.steps?.map((s) => s.action))})`);
  const batchDialogs = (await windows()).filter((w) => /^save/i.test(w.title)).map((w) => w.title);
  expect(batchDialogs.length === 0, `the batch ended once its Return's dialog had gone, so its screenshot shows the editor (${JSON.stringify(batchDialogs)})`);
  const batchImage = imageOf(task);
  expect(batchImage !== undefined, "the batch ends with one screenshot");
  if (batchImage) saveImage(batchImage, "batch");
  const batchFile = await waitFor(async () => {
    const text = await fileOnDisk("/workspace/flow/batch.txt");
    return text === "<missing>\n" ? null : text;
  }, 10, "the batch's file").catch(() => "<missing>\n");
  expect(batchFile === "written in one batch\n", `the batch saved its file (${JSON.stringify(batchFile)})`);
  const titleBefore = (await activeWindow())?.title;
  expect(/ - Mousepad$/.test(titleBefore ?? ""),
         `the dialog the batch's Return closed gave the focus back to the editor, not to the terminal that showed a command meanwhile (${titleBefore})`);

  const invalid = await raw("desktop_actions", {
    actions: [
      { action: "type", text: "never typed" },
      { action: "key", text: "ctrl+a" },
      { action: "left_click", coordinate: [99999, 5] },
    ],
  });
  const invalidError = invalid.structuredContent?.error ?? invalid.content?.[0]?.text ?? "";
  expect(invalid.isError === true && /^Step 3 \(left_click\): Coordinate \(99999, 5\) is outside/.test(invalidError) &&
         /Nothing was run\.$/.test(invalidError),
         `a batch with an invalid third step is refused, naming it (${invalidError})`);
  const titleAfterInvalid = (await activeWindow())?.title;
  expect(titleAfterInvalid === titleBefore && !titleAfterInvalid.startsWith("*"),
         `... and ran nothing: the document is unchanged (${titleAfterInvalid})`);

  const stopped = await raw("desktop_actions", {
    actions: [
      { action: "cursor_position" },
      { action: "window", window_id: "0x7fffff01", operation: "activate" },
      { action: "type", text: "never typed either" },
    ],
    observe: "none",
  });
  const stop = stopped.structuredContent ?? {};
  expect(stopped.isError === true && stop.completed === 1 && stop.failed_step === 2 &&
         JSON.stringify(stop.not_run) === "[3]" && stop.steps.length === 1 &&
         /^Step 2 \(window\) failed: Window '0x7fffff01' was not found\.$/.test(stop.error ?? ""),
         `a failing second step stops the batch there (${JSON.stringify({ completed: stop.completed, failed: stop.failed_step, not_run: stop.not_run, error: stop.error })})`);
  const titleAfterStop = (await activeWindow())?.title;
  expect(titleAfterStop === titleBefore, `... and the step after it never ran (${titleAfterStop})`);

  // --- accessibility as tools: find, press, set text, wait, stale refs -----------------
  await payload("press_keys", { keys: "ctrl+n" });
  await payload("type", { text: "saved through the accessibility tree\n" });
  await payload("press_keys", { keys: "ctrl+s" });
  const nameField = await payload("wait_for_element", { role: "text", state: "focused", timeout_ms: 15000 });
  expect(nameField.found === true && /^atspi:/.test(nameField.element?.ref ?? ""),
         `wait_for_element finds the save dialog's focused name field (${nameField.element?.ref}, ${nameField.waited_ms} ms)`);
  const setText = await payload("element_action", { element: nameField.element.ref, action: "set_text",
                                                    text: "/workspace/flow/a11y.txt" });
  expect(setText.ok === true && setText.role === "text", `element_action set_text fills it (${JSON.stringify(setText.role)})`);
  const saveButtons = await payload("find_elements", { role: "push button", name: "save" });
  const saveButton = (saveButtons.elements ?? []).find((e) => /^_?save$/i.test(e.name));
  expect(saveButton !== undefined, `find_elements finds the Save button (${(saveButtons.elements ?? []).map((e) => e.name).join(", ")})`);
  await payload("element_action", { element: saveButton.ref, action: "press" });
  const a11yFile = await waitFor(async () => {
    const text = await fileOnDisk("/workspace/flow/a11y.txt");
    return text === "<missing>\n" ? null : text;
  }, 10, "the file saved through the tree").catch(() => "<missing>\n");
  expect(a11yFile === "saved through the accessibility tree\n",
         `pressing Save through the tree saved the file (${JSON.stringify(a11yFile)})`);
  // A ref whose element went away is refused, never used on whatever is there now.
  await payload("launch", { target: "xfce4-terminal --title=stale-check" });
  const staleFrame = await payload("wait_for_element", { role: "frame", name: "stale-check", timeout_ms: 15000 });
  expect(staleFrame.found === true, `the terminal's frame is in the tree (${staleFrame.element?.ref})`);
  await payload("close_window", { window: "stale-check" });
  await waitFor(async () => !(await windows()).some((w) => w.title === "stale-check"), 10, "the terminal to close");
  await payload("launch", { target: "xfce4-terminal --title=another-one" });
  await waitFor(async () => (await windows()).some((w) => w.title === "another-one"), 15, "another terminal");
  const stale = await raw("element_action", { element: staleFrame.element.ref, action: "focus" });
  const staleError = stale.structuredContent?.error ?? "";
  expect(stale.isError === true && /no longer/.test(staleError),
         `element_action on a ref whose element went away is refused (${staleError})`);
  await payload("close_window", { window: "another-one" });

  // --- image budgets: zoom magnifies, JPEG and WebP under a byte cap, a drawn pointer ------
  const zoomed = await call("zoom", { x: 0, y: 0, width: 200, height: 100 });
  const zoomedFacts = zoomed.structuredContent?.image ?? {};
  expect(zoomedFacts.width === 1024 && zoomedFacts.height === 512 && zoomedFacts.scale > 5,
         `zoom magnifies a 200x100 region to 1024x512 (${JSON.stringify(zoomedFacts)})`);
  saveImage(imageOf(zoomed), "zoom-magnified");
  const jpeg = await call("look_at_screen", { include_accessibility: false, format: "jpeg", quality: 70,
                                              max_bytes: 80000, show_pointer: true });
  const jpegImage = imageOf(jpeg);
  const jpegBytes = Buffer.from(jpegImage?.data ?? "", "base64");
  expect(jpegImage?.mimeType === "image/jpeg" && jpegBytes[0] === 0xff && jpegBytes[1] === 0xd8 &&
         jpegBytes.length <= 80000 && jpeg.structuredContent.image.bytes === jpegBytes.length,
         `look_at_screen as JPEG under an 80,000-byte cap (${jpegBytes.length} bytes, quality ${jpeg.structuredContent?.image?.quality})`);
  if (jpegImage) saveImage(jpegImage, "jpeg-with-pointer");
  const webp = await call("look_at_screen", { include_accessibility: false, format: "webp", max_bytes: 30000 });
  const webpBytes = Buffer.from(imageOf(webp)?.data ?? "", "base64");
  expect(imageOf(webp)?.mimeType === "image/webp" && webpBytes.subarray(8, 12).toString("ascii") === "WEBP" &&
         webpBytes.length <= 30000,
         `look_at_screen as WebP under a 30,000-byte cap (${webpBytes.length} bytes, ${webp.structuredContent?.image?.width}px wide)`);
  // A tiny cap: the image shrinks to fit, or the call says it cannot; never a larger image.
  const tiny = await raw("look_at_screen", { include_accessibility: false, max_bytes: 1024 });
  const tinyBytes = Buffer.from(imageOf(tiny)?.data ?? "", "base64").length;
  const tinyError = tiny.structuredContent?.error ?? "";
  expect(tiny.isError ? /does not fit in 1024 bytes/.test(tinyError) : tinyBytes > 0 && tinyBytes <= 1024,
         `a 1024-byte cap is kept or refused clearly (${tiny.isError ? tinyError : tinyBytes + " bytes"})`);
  await call("look_at_screen", { include_accessibility: false });  // back to full-size PNG

  // --- the browser shows a page the agent serves -----------------------------------------
  await payload("terminal_execute", {
    command: "mkdir -p /tmp/site && printf '<title>Served by the agent</title><h1 style=\"font-size:64px\">Hello from the computer</h1>' > /tmp/site/index.html && " +
             "(setsid python3 -m http.server 8765 --bind 127.0.0.1 --directory /tmp/site >/tmp/site.log 2>&1 &) ; " +
             "for i in $(seq 50); do python3 -c 'import urllib.request; urllib.request.urlopen(\"http://127.0.0.1:8765/\")' 2>/dev/null && break; sleep 0.1; done",
  });
  const browser = await payload("launch", { target: "http://127.0.0.1:8765/" });
  const page = await waitFor(async () => (await windows()).find((w) => /Served by the agent/.test(w.title)), 60,
                             "the browser window with the page").catch(() => null);
  expect(page !== null, `the browser shows the served page (${page?.title ?? JSON.stringify(browser.window?.title)})`);
  await payload("wait_for_screen", { until: "stable", stable_ms: 500, timeout_ms: 10000 });
  await look("browser");
} catch (caught) {
  error(caught);
} finally {
  await session.close();
}
report();
