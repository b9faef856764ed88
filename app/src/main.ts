// The App's page: finds out how it was opened (inside a chat client, or as the server's
// /dashboard.html), connects, and keeps every part of the page in step with the computer.
import type { App } from "@modelcontextprotocol/ext-apps";
import { ActivityPanel } from "./activity";
import { CheckpointsPanel } from "./checkpoints";
import { desktopAddress } from "./desktop_address";
import { DesktopView, type ViewState } from "./desktop_view";
import { FilesPanel } from "./files";
import { HostedLink, LinkFailure, payloadOf, StandaloneLink, ToolFailure } from "./link";
import type { Payload, ServerLink } from "./link";
import { ProcessesPanel } from "./processes";
import { SoundStream } from "./sound";
import { TerminalPanel } from "./terminal";
import { storedToken, storeToken, takeTokenFromFragment } from "./token";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const dom = {
  computerId: $("computer-id"), state: $("state"), banner: $("banner"), progress: $("progress"),
  network: $<HTMLInputElement>("network-switch"), desktop: $<HTMLInputElement>("desktop-switch"),
  sound: $<HTMLButtonElement>("sound-button"), control: $<HTMLButtonElement>("control-button"),
  fullscreen: $<HTMLButtonElement>("fullscreen-button"), screen: $("screen"),
  screenMessage: $("screen-message"), screenTitle: $("screen-title"), screenDetail: $("screen-detail"),
  desktopNote: $("desktop-note"), lock: $("lock"), lockForm: $<HTMLFormElement>("lock-form"),
  lockToken: $<HTMLInputElement>("lock-token"), lockReason: $("lock-reason"), workspace: $("workspace"),
};

const STEADY_POLL_MS = 2_000;
const BUSY_POLL_MS = 500;

let link: ServerLink | null = null;
let app: App | null = null;
let status: Payload | null = null;
let starting = false;
let switching = false;
let control = false;
let pollTimer: number | undefined;
let linkProblem: string | null = null;

const view = new DesktopView($("vnc"), (state, detail) => renderScreen(state, detail));
const sound = new SoundStream();
const activity = new ActivityPanel($("activity-list"), $("activity-empty"), (failure) => lost(failure),
                                   (event) => {
                                     // A switch or a command changes what the header shows.
                                     if (event.phase === "result" && event.payload) applyPayload(event.payload);
                                   });
const terminal = new TerminalPanel($<HTMLFormElement>("terminal-form"), $<HTMLInputElement>("terminal-input"),
                                   $("terminal-output"), $<HTMLButtonElement>("terminal-run"),
                                   (error) => lost(error));
const files = new FilesPanel($<HTMLFormElement>("files-form"), $<HTMLInputElement>("files-path"),
                             $<HTMLButtonElement>("files-up"), $("files-list"), $("file-view-name"),
                             $("file-view"), (error) => lost(error));
const checkpoints = new CheckpointsPanel({
  tab: $<HTMLButtonElement>("tab-checkpoints"), panel: $("panel-checkpoints"),
  form: $<HTMLFormElement>("checkpoint-form"), name: $<HTMLInputElement>("checkpoint-name"),
  create: $<HTMLButtonElement>("checkpoint-create"), status: $("checkpoint-status"),
  list: $("checkpoint-list"), empty: $("checkpoint-empty"), confirm: $("checkpoint-confirm"),
  confirmTitle: $("checkpoint-confirm-title"), confirmText: $("checkpoint-confirm-text"),
  confirmYes: $<HTMLButtonElement>("checkpoint-confirm-yes"),
  confirmNo: $<HTMLButtonElement>("checkpoint-confirm-no"),
}, (error) => lost(error), () => void pollStatus(), () => {
  // No checkpoints on this server: the tab is gone, so it cannot stay selected.
  if ($("tab-checkpoints").getAttribute("aria-selected") === "true") $("tab-activity").click();
});
const processes = new ProcessesPanel({
  section: $("processes"), count: $("process-count"), list: $("process-list"), empty: $("process-empty"),
  view: $("process-view"), title: $("process-title"), note: $("process-note"),
  kill: $<HTMLButtonElement>("process-kill"), status: $("process-status"), confirm: $("process-confirm"),
  confirmTitle: $("process-confirm-title"), confirmText: $("process-confirm-text"),
  confirmYes: $<HTMLButtonElement>("process-confirm-yes"), confirmNo: $<HTMLButtonElement>("process-confirm-no"),
  terminal: $("process-terminal"),
}, (error) => lost(error), () => renderScreen(view.state));

// --- what the page shows ---------------------------------------------------------------

// Two sources share the banner: the computer's state (each status poll replaces it) and what
// the person's own last action answered (a refusal stays readable for NOTICE_MS, or until
// the next action replaces it). A lost server outranks both.
const NOTICE_MS = 20_000;
let statusBanner: [string, "bad" | "warn" | "info"] | null = null;
let notice: { text: string; tone: "bad" | "warn" | "info"; until: number } | null = null;

function showBanner(): void {
  const now = Date.now();
  if (notice && notice.until < now) notice = null;
  // A dead computer or a lost engine outranks the answer to the person's last action.
  const urgent = statusBanner?.[1] === "bad" ? { text: statusBanner[0], tone: statusBanner[1] } : null;
  const shown = linkProblem ? { text: linkProblem, tone: "bad" as const }
    : urgent ?? notice ?? (statusBanner ? { text: statusBanner[0], tone: statusBanner[1] } : null);
  if (!shown) {
    dom.banner.removeAttribute("data-tone");
    dom.banner.textContent = "";
    return;
  }
  dom.banner.dataset.tone = shown.tone;
  dom.banner.textContent = shown.text;
}

function setBanner(text: string | null, tone: "bad" | "warn" | "info" = "info"): void {
  notice = text ? { text, tone, until: Date.now() + NOTICE_MS } : null;
  showBanner();
}

function setPill(text: string, tone: "ok" | "warn" | "bad" | "idle"): void {
  dom.state.textContent = text;
  dom.state.dataset.tone = tone;
}

function setProgress(fraction: number | null): void {
  if (fraction === null) {
    dom.progress.removeAttribute("data-active");
    return;
  }
  dom.progress.dataset.active = "";
  (dom.progress.firstElementChild as HTMLElement).style.width = `${Math.round(fraction * 100)}%`;
}

function renderScreen(state: ViewState, detail?: string): void {
  const desktopOn = Boolean(status?.desktop_environment);
  const show = (title: string, text = "") => {
    dom.screenMessage.hidden = false;
    dom.screenTitle.textContent = title;
    dom.screenDetail.textContent = text;
  };
  dom.sound.disabled = state !== "connected";
  // Control reaches the desktop and the terminal's processes: without a desktop, it is for them.
  dom.control.disabled = state !== "connected" && !(processes.offered && status?.computer_attached);
  if (state === "connected") {
    dom.screenMessage.hidden = true;
    return;
  }
  if (!status?.computer_attached) {
    show("The computer is not running", "Its desktop appears here once it runs.");
  } else if (!desktopOn) {
    show("Desktop is off", "Switch Desktop on to watch it here. The terminal, the files and the " +
                           "activity work without it.");
  } else if (state === "refused") {
    show("The desktop refused the connection", detail ?? "");
  } else if (state === "retrying") {
    // Chromium asks before a web page may reach 127.0.0.1 ("local network access"); a chat
    // site that was refused can never show the desktop.
    const hint = link?.mode === "hosted" && view.failures >= 3
      ? " If it never connects, this browser may be keeping the chat page from reaching the " +
        "computer on 127.0.0.1: allow the chat site's local network access in its site settings."
      : "";
    show("Reconnecting to the desktop…", `${detail ?? ""}.${hint}`);
  } else {
    show("Connecting to the desktop…");
  }
}

function applyPayload(payload: Payload): void {
  if (typeof payload.computer_id === "string") dom.computerId.textContent = payload.computer_id;
  if (!status) status = {};
  for (const key of ["computer_id", "computer_attached", "desktop_environment", "desktop_url",
                     "network_access", "workspace_directory"]) {
    if (key in payload) status[key] = payload[key];
  }
  // computer_ui and runtime_status list the host folders mounted in the computer.
  if ("mounts" in payload) files.showMounts(payload.mounts, $("files-mounts"));
  if (!switching) {
    if (typeof payload.network_access === "boolean") dom.network.checked = payload.network_access;
    if (typeof payload.desktop_environment === "boolean") dom.desktop.checked = payload.desktop_environment;
  }
  if ("desktop_url" in payload || "desktop_environment" in payload) {
    view.show(status.desktop_environment ? desktopAddress(status.desktop_url) : null);
    if (!status.desktop_environment) sound.stop();
  }
  renderScreen(view.state);
}

// What the computer is doing, from runtime_status (computer_state where the server gives it).
function stateOf(payload: Payload): string {
  if (typeof payload.computer_state === "string") return payload.computer_state;
  if (payload.computer_attached) return "running";
  return payload.runtime_state === "working" ? "starting" : "not_started";
}

function applyStatus(payload: Payload): void {
  applyPayload(payload);
  const state = stateOf(payload);
  const running = state === "running";
  dom.network.disabled = !(link !== null && running && !switching);
  dom.desktop.disabled = dom.network.disabled;
  let banner: [string, "bad" | "warn" | "info"] | null = null;
  if (typeof payload.runtime_error === "string" && payload.runtime_error) {
    setPill("engine unreachable", "bad");
    banner = [payload.runtime_error, "bad"];
    setProgress(null);
  } else if (state === "died") {
    setPill("stopped", "bad");
    banner = [`${String(payload.computer_error ?? "The computer stopped.")} It stopped unexpectedly ` +
              "(killed or stopped from outside). Its files are kept on its disk; restarting the " +
              "server (or the computer_restart tool, where it is offered) brings it back.", "bad"];
    setProgress(null);
  } else if (payload.runtime_state === "working" || state === "starting") {
    setPill("preparing", "warn");
    banner = [String(payload.runtime_message ?? "Preparing the computer…"), "info"];
    const total = Number(payload.runtime_total) || 4;
    setProgress(Math.max(0.02, Math.min(1, Number(payload.runtime_progress) / total)));
  } else if (running) {
    setPill("running", "ok");
    setProgress(null);
  } else if (starting) {
    setPill("starting", "warn");
    setProgress(0.02);
  } else {
    setPill("not started", "idle");
    setProgress(null);
  }
  statusBanner = banner;
  showBanner();
  if (!running) view.show(null);
}

// --- talking to the server ------------------------------------------------------------

function lost(error: unknown): void {
  if (error instanceof LinkFailure) {
    if (error.unauthorized && link?.mode === "standalone") {
      void relock("The server refused the access token. Type the token the server was started with.");
      return;
    }
    linkProblem = error.message;
    setPill("server unreachable", "bad");
    showBanner();
  }
}

async function pollStatus(): Promise<void> {
  window.clearTimeout(pollTimer);
  if (!link) return;
  let busy = false;
  try {
    const payload = await link.call("runtime_status", {}, 15_000);
    linkProblem = null;
    applyStatus(payload);
    busy = payload.runtime_state === "working" || starting;
  } catch (error) {
    if (error instanceof ToolFailure) setBanner(error.message, "warn");
    else lost(error);
  }
  if (link) pollTimer = window.setTimeout(() => void pollStatus(), busy ? BUSY_POLL_MS : STEADY_POLL_MS);
}

async function startComputer(): Promise<void> {
  if (!link || starting) return;
  starting = true;
  void pollStatus();
  try {
    applyStatus({ ...(await link.call("computer_ui", {}, 900_000)) });
  } catch (error) {
    setBanner((error as Error).message, "bad");
    if (!(error instanceof ToolFailure)) lost(error);
  } finally {
    starting = false;
  }
}

async function flip(tool: "set_network_access" | "set_desktop_environment", box: HTMLInputElement): Promise<void> {
  if (!link) return;
  const wanted = box.checked;
  switching = true;
  dom.network.disabled = true;
  dom.desktop.disabled = true;
  setBanner(tool === "set_network_access"
    ? `Switching the network ${wanted ? "on" : "off"}…`
    : `Switching the desktop ${wanted ? "on" : "off"}…`, "info");
  try {
    const result = await link.call(tool, { enabled: wanted }, 120_000);
    switching = false;
    setBanner(null);
    applyPayload(result);
  } catch (error) {
    switching = false;
    box.checked = !wanted;
    setBanner((error as Error).message, "warn");
    if (!(error instanceof ToolFailure)) lost(error);
  } finally {
    void pollStatus();
  }
}

function connected(newLink: ServerLink): void {
  link = newLink;
  linkProblem = null;
  dom.lock.removeAttribute("data-shown");
  dom.workspace.hidden = false;
  setPill("connecting…", "idle");
  activity.start(newLink);
  terminal.attach(newLink);
  files.attach(newLink, typeof status?.workspace_directory === "string" ? status.workspace_directory : "/workspace");
  checkpoints.attach(newLink);
  processes.attach(newLink);
  void startComputer();
}

// --- opening ------------------------------------------------------------------------------

function applyTheme(theme: unknown): void {
  const dark = theme === "dark" || (theme === undefined && matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.dataset.theme = dark ? "dark" : "light";
}

async function openHosted(): Promise<void> {
  const hosted = await HostedLink.open((created) => {
    app = created;
    created.ontoolresult = (params) => applyPayload(payloadOf(params));
    created.onhostcontextchanged = (context) => {
      if (context.theme) applyTheme(context.theme);
    };
    created.onteardown = async () => {
      activity.stop();
      sound.stop();
      view.show(null);
      link = null;
      return {};
    };
  });
  const context = hosted.app.getHostContext();
  applyTheme(context?.theme);
  if (context?.availableDisplayModes?.includes("fullscreen")) dom.fullscreen.hidden = false;
  connected(hosted);
}

async function openStandalone(token: string | null): Promise<void> {
  const endpoint = new URL("/mcp", location.href);
  try {
    connected(await StandaloneLink.open(endpoint, token));
  } catch (error) {
    if (error instanceof LinkFailure && error.unauthorized) {
      storeToken(null);
      showLock(token ? "The server refused this token. Type the token the server was started with."
                     : "This server needs its access token (--auth-token). It stays in this tab only.");
      return;
    }
    setPill("server unreachable", "bad");
    setBanner((error as Error).message, "bad");
    window.setTimeout(() => void openStandalone(token), 3_000);
  }
}

function showLock(reason: string): void {
  dom.lockReason.textContent = reason;
  dom.lock.dataset.shown = "";
  dom.workspace.hidden = true;
  setPill("token needed", "warn");
  setBanner(null);
  dom.lockToken.focus();
}

async function relock(reason: string): Promise<void> {
  const old = link;
  link = null;
  activity.stop();
  await old?.close();
  storeToken(null);
  showLock(reason);
}

dom.lockForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const token = dom.lockToken.value.trim();
  if (!token) return;
  dom.lockToken.value = "";
  storeToken(token);
  setPill("connecting…", "idle");
  void openStandalone(token);
});
dom.network.addEventListener("change", () => void flip("set_network_access", dom.network));
dom.desktop.addEventListener("change", () => void flip("set_desktop_environment", dom.desktop));
dom.control.addEventListener("click", () => {
  control = !control;
  view.setControl(control);
  processes.setControl(control);
  dom.control.textContent = control ? "Release control" : "Take control";
  dom.control.classList.toggle("primary", control);
  dom.screen.dataset.control = String(control);
  dom.desktopNote.textContent = !control ? "watch only"
    : view.state === "connected" ? "you have control: your mouse and keyboard reach the desktop"
    : "you have control: what you type in the terminal tab reaches its processes";
});
dom.sound.addEventListener("click", () => {
  if (sound.playing) {
    sound.stop();
    dom.sound.textContent = "Sound off";
    return;
  }
  const address = desktopAddress(status?.desktop_url);
  if (!address) return;
  sound.start(address.sound, () => {
    dom.sound.textContent = "Sound off";
  });
  dom.sound.textContent = "Sound on";
});
dom.fullscreen.addEventListener("click", () => {
  if (!app) return;
  const mode = app.getHostContext()?.displayMode === "fullscreen" ? "inline" : "fullscreen";
  void app.requestDisplayMode({ mode }).catch(() => undefined);
});
for (const tab of document.querySelectorAll<HTMLButtonElement>(".tabs button")) {
  tab.addEventListener("click", () => {
    for (const other of document.querySelectorAll<HTMLButtonElement>(".tabs button")) {
      other.setAttribute("aria-selected", String(other === tab));
      $(`panel-${other.dataset.tab}`).toggleAttribute("data-active", other === tab);
    }
    if (tab.dataset.tab === "files") files.shown();
    if (tab.dataset.tab === "checkpoints") checkpoints.shown();
    processes.setVisible(tab.dataset.tab === "terminal");
  });
}

// What a test or a person's devtools can read; holds no secret.
(window as any).virtualComputer = {
  get mode() { return link?.mode ?? null; },
  get status() { return status ? { ...status, desktop_url: status.desktop_url ? "(set)" : null } : null; },
  get view() { return { state: view.state, firstFrameAt: view.firstFrameAt }; },
  get sound() { return { playing: sound.playing, peak: sound.peak, bytes: sound.bytes }; },
  canvas: () => view.canvas(),
  get processes() { return { shown: processes.shownProcess, offered: processes.offered }; },
  processText: () => processes.terminalText(),
};

applyTheme(undefined);
renderScreen("off");
if (window.parent !== window) {
  void openHosted().catch((error) => {
    setPill("not connected", "bad");
    setBanner(`The chat client did not connect the App: ${(error as Error).message}`, "bad");
  });
} else {
  const token = takeTokenFromFragment() ?? storedToken();
  if (token) storeToken(token);
  void openStandalone(token);
}
