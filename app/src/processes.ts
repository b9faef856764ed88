// The terminal tab's processes: the computer's processes (process_list, read again every 2 s
// while the tab is shown), and the output of the one selected, live, in a terminal (xterm.js).
// Its output is read with process_output from byte offsets, so the agent's own process_read
// still returns everything. With control taken, keystrokes typed into a pty process's terminal
// go to it (process_input, gathered for 30 ms); otherwise the terminal only shows. A running
// process can be killed (process_signal) after an in-page question. Typing and killing take
// their output from the same offsets, so they leave the agent's read position alone too. Where the server offers no processes, this
// part of the tab stays hidden.
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import type { Payload, ServerLink } from "./link";
import { ToolFailure } from "./link";

const LIST_EVERY_MS = 2_000;
const OUTPUT_WAIT_MS = 1_000;
const RETRY_MS = 2_000;
const TYPING_BATCH_MS = 30;
const INPUT_CHUNK = 16_384;  // characters: at most 64 KiB of UTF-8 a write
const PTY_ROWS = 24;  // the processes' default terminal (process_start's rows and cols)
const PTY_COLS = 80;

// The answer of a server (or a chat client) that has no such tool.
function isUnknownTool(error: unknown): boolean {
  return error instanceof ToolFailure &&
    /unknown tool|tool not found|no such tool|not found: process_/i.test(error.message);
}

// When it started, in the person's local time (the time only when it is today).
export function formatStarted(started: unknown): string {
  const date = new Date(String(started));
  if (Number.isNaN(date.getTime())) return String(started ?? "");
  const today = date.toDateString() === new Date().toDateString();
  return today ? date.toLocaleTimeString()
               : date.toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" });
}

// "running", "exit 0", "exit 143 · TERM", "lost".
export function formatOutcome(process: Payload): string {
  if (process.state === "running") return "running";
  if (process.state === "lost") return "lost";
  const code = process.exit_code === null || process.exit_code === undefined ? "?" : String(process.exit_code);
  return typeof process.signal === "string" ? `exit ${code} · ${process.signal}` : `exit ${code}`;
}

export interface ProcessesElements {
  section: HTMLElement;
  count: HTMLElement;
  list: HTMLElement;
  empty: HTMLElement;
  view: HTMLElement;
  title: HTMLElement;
  note: HTMLElement;
  kill: HTMLButtonElement;
  status: HTMLElement;
  confirm: HTMLElement;
  confirmTitle: HTMLElement;
  confirmText: HTMLElement;
  confirmYes: HTMLButtonElement;
  confirmNo: HTMLButtonElement;
  terminal: HTMLElement;
}

// The process shown, and where its next read starts.
interface Selected {
  id: string;
  info: Payload;
  stdoutOffset: number;
  stderrOffset: number;
  generation: number;
}

export class ProcessesPanel {
  private link: ServerLink | null = null;
  private available = false;
  private visible = false;
  private control = false;
  private processes: Payload[] = [];
  private listTimer: number | undefined;
  private listRequest = 0;
  private selected: Selected | null = null;
  private generation = 0;
  private following = -1;  // the generation whose output is being followed
  private term: Terminal | null = null;
  private typed = "";
  private typingTimer: number | undefined;
  private writing = false;
  private killing = false;

  // `onAvailable`: whether the server offers processes (the part is shown or hidden).
  constructor(private readonly dom: ProcessesElements,
              private readonly onLinkFailure: (error: unknown) => void,
              private readonly onAvailable: (available: boolean) => void) {
    dom.kill.addEventListener("click", () => this.askKill());
    dom.confirmYes.addEventListener("click", () => void this.kill());
    dom.confirmNo.addEventListener("click", () => this.closeConfirm());
    dom.confirm.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        this.closeConfirm();
      }
    });
    document.addEventListener("visibilitychange", () => this.wake());
  }

  // Whether the server offers processes (known after the first list).
  get offered(): boolean {
    return this.available;
  }

  get shownProcess(): string | null {
    return this.selected?.id ?? null;
  }

  // The whole text of the terminal (every line of its buffer), for tests and diagnostics.
  terminalText(): string {
    const buffer = this.term?.buffer.active;
    if (!buffer) return "";
    const lines: string[] = [];
    for (let row = 0; row < buffer.length; row += 1) {
      lines.push(buffer.getLine(row)?.translateToString(true) ?? "");
    }
    return lines.join("\n").replace(/\n+$/, "");
  }

  // Finds out whether the server has processes: the part appears only when it does.
  attach(link: ServerLink | null): void {
    this.link = link;
    this.select(null);
    if (link) void this.refresh();
  }

  // Whether the terminal tab is the one shown: the list and the output are read only then.
  setVisible(visible: boolean): void {
    this.visible = visible;
    this.wake();
  }

  // Whether the person has taken control: then what they type reaches a pty process.
  setControl(control: boolean): void {
    this.control = control;
    this.renderView();
  }

  private active(): boolean {
    return this.link !== null && this.visible && document.visibilityState !== "hidden";
  }

  private wake(): void {
    if (!this.active()) return;
    if (this.listTimer === undefined) void this.refresh();
    this.followSelected();
  }

  private scheduleList(): void {
    window.clearTimeout(this.listTimer);
    this.listTimer = undefined;
    if (this.available && this.active()) {
      this.listTimer = window.setTimeout(() => void this.refresh(), LIST_EVERY_MS);
    }
  }

  async refresh(): Promise<void> {
    window.clearTimeout(this.listTimer);
    this.listTimer = undefined;
    const link = this.link;
    if (!link) return;
    const request = ++this.listRequest;
    try {
      const listing = await link.call("process_list", {}, 30_000);
      if (request !== this.listRequest || link !== this.link) return;
      this.setAvailable(true);
      this.render(Array.isArray(listing.processes) ? listing.processes : []);
      if (this.dom.status.dataset.source === "list") this.say("");
    } catch (error) {
      if (request !== this.listRequest || link !== this.link) return;
      if (isUnknownTool(error)) {
        this.setAvailable(false);
        return;
      }
      // The tools exist; the computer could not answer now (not started yet, engine away).
      this.setAvailable(true);
      if (this.visible) this.say((error as Error).message, "bad", "list");
      if (!(error instanceof ToolFailure)) this.onLinkFailure(error);
    }
    if (request === this.listRequest) this.scheduleList();
  }

  private setAvailable(available: boolean): void {
    const changed = available !== this.available;
    this.available = available;
    this.dom.section.hidden = !available;
    if (!available) this.select(null);
    if (changed) this.onAvailable(available);
  }

  private render(processes: Payload[]): void {
    this.processes = processes;
    const running = processes.filter((process) => process.state === "running").length;
    this.dom.count.textContent = processes.length === 0 ? ""
      : `${processes.length} · ${running} running`;
    this.dom.empty.hidden = processes.length > 0;
    this.dom.list.replaceChildren();
    // Newest first: the one just started is at hand.
    for (const process of [...processes].reverse()) {
      const id = String(process.process_id ?? "");
      const item = document.createElement("li");
      item.dataset.id = id;
      item.dataset.state = String(process.state ?? "");
      const row = document.createElement("button");
      row.type = "button";
      row.className = "process-row";
      row.setAttribute("aria-pressed", String(id === this.selected?.id));
      const name = document.createElement("span");
      name.className = "id";
      name.textContent = id;
      const command = document.createElement("span");
      command.className = "command";
      command.textContent = String(process.command ?? "");
      command.title = String(process.command ?? "");
      const state = document.createElement("span");
      state.className = "state";
      state.dataset.state = String(process.state ?? "");
      if (process.state === "exited" && process.exit_code !== 0) state.dataset.failed = "";
      state.textContent = formatOutcome(process);
      const started = document.createElement("time");
      started.className = "started";
      started.dateTime = String(process.started ?? "");
      started.textContent = formatStarted(process.started);
      row.append(name, command, state, started);
      row.addEventListener("click", () => this.select(id));
      item.append(row);
      this.dom.list.append(item);
    }
    const shown = this.selected;
    if (shown) {
      const info = processes.find((process) => process.process_id === shown.id);
      if (info) shown.info = { ...shown.info, ...info };
      this.renderView();
    }
  }

  private select(id: string | null): void {
    if (id !== null && id === this.selected?.id) return;
    this.generation += 1;
    this.closeConfirm(false);
    this.typed = "";
    window.clearTimeout(this.typingTimer);
    this.term?.dispose();
    this.term = null;
    this.say("");
    const info = id === null ? undefined : this.processes.find((process) => process.process_id === id);
    if (id === null || !info) {
      this.selected = null;
      this.dom.view.hidden = true;
      for (const row of this.dom.list.querySelectorAll("button.process-row")) row.setAttribute("aria-pressed", "false");
      return;
    }
    this.selected = { id, info, stdoutOffset: 0, stderrOffset: 0, generation: this.generation };
    for (const item of this.dom.list.querySelectorAll<HTMLElement>("li")) {
      item.querySelector("button.process-row")?.setAttribute("aria-pressed", String(item.dataset.id === id));
    }
    const pty = Boolean(info.pty);
    const term = new Terminal({
      rows: PTY_ROWS,
      cols: PTY_COLS,
      convertEol: !pty,  // a pipe's output has bare line feeds
      disableStdin: true,
      cursorBlink: false,
      scrollback: 5_000,
      fontSize: 12,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace',
      theme: { background: "#0f1720", foreground: "#d9e2ec" },
    });
    this.term = term;
    this.dom.view.hidden = false;
    this.dom.terminal.replaceChildren();
    term.open(this.dom.terminal);
    term.onData((data) => this.type(data));
    this.renderView();
    this.followSelected();
  }

  private writable(): boolean {
    const shown = this.selected;
    return Boolean(shown && shown.info.pty && shown.info.state === "running" && this.control);
  }

  private renderView(): void {
    const shown = this.selected;
    if (!shown) return;
    const info = shown.info;
    this.dom.title.textContent = `${shown.id} · ${String(info.command ?? "")}`;
    this.dom.title.title = String(info.command ?? "");
    const running = info.state === "running";
    let note: string;
    if (!running) note = info.state === "lost" ? "lost: ended when the computer restarted" : `ended · ${formatOutcome(info)}`;
    else if (!info.pty) note = "running · output only (no terminal to type into)";
    else if (this.control) note = "running · you have control: what you type goes to the process";
    else note = "running · watch only: take control to type into it";
    this.dom.note.textContent = note;
    this.dom.kill.hidden = !running;
    this.dom.kill.disabled = this.killing || !this.link;
    const writable = this.writable();
    this.dom.view.dataset.control = String(writable);
    if (this.term) {
      this.term.options.disableStdin = !writable;
      this.term.options.cursorStyle = writable ? "block" : "underline";
      this.term.options.cursorInactiveStyle = writable ? "outline" : "none";
    }
  }

  // --- output ------------------------------------------------------------------------------

  private followSelected(): void {
    const shown = this.selected;
    if (!shown || this.following === shown.generation || !this.active()) return;
    void this.follow(shown);
  }

  private async follow(shown: Selected): Promise<void> {
    this.following = shown.generation;
    const current = () => this.selected === shown && shown.generation === this.generation;
    try {
      while (current() && this.active() && this.link) {
        const link = this.link;
        const running = shown.info.state === "running";
        let answer: Payload;
        const began = Date.now();
        try {
          answer = await link.call("process_output", {
            process_id: shown.id, stdout_offset: shown.stdoutOffset, stderr_offset: shown.stderrOffset,
            wait_ms: running ? OUTPUT_WAIT_MS : 0,
          }, 30_000);
        } catch (error) {
          if (!current()) return;
          this.say((error as Error).message, "bad", "output");
          if (!(error instanceof ToolFailure)) this.onLinkFailure(error);
          await new Promise((resolve) => window.setTimeout(resolve, RETRY_MS));
          continue;
        }
        if (!current()) return;
        if (this.dom.status.dataset.source === "output") this.say("");
        this.show(shown, answer);
        if (answer.more) continue;
        if (answer.state !== "running") return;  // all of it is shown
        // A server that answers at once with nothing new is asked again a little later.
        const pause = 150 - (Date.now() - began);
        if (pause > 0) await new Promise((resolve) => window.setTimeout(resolve, pause));
      }
    } finally {
      if (this.following === shown.generation) this.following = -1;
    }
  }

  private show(shown: Selected, answer: Payload): void {
    const term = this.term;
    if (!term) return;
    const dropped = Number(answer.output_dropped ?? answer.stdout_dropped ?? 0) + Number(answer.stderr_dropped ?? 0);
    if (dropped > 0) {
      const log = Object.values(answer.log_paths ?? {}).join(", ");
      term.write(`\x1b[2m[${dropped} earlier bytes are no longer in memory; ${log || "the log file"} has them]\x1b[0m\r\n`);
    }
    const out = String(answer.pty ? answer.output ?? "" : answer.stdout ?? "");
    if (out) term.write(out);
    const err = String(answer.stderr ?? "");
    if (err && !answer.pty) term.write(`\x1b[31m${err}\x1b[0m`);
    if (Number.isFinite(Number(answer.stdout_offset))) shown.stdoutOffset = Number(answer.stdout_offset);
    if (Number.isFinite(Number(answer.stderr_offset))) shown.stderrOffset = Number(answer.stderr_offset);
    const wasRunning = shown.info.state === "running";
    for (const key of ["state", "exit_code", "signal", "note", "ended", "pty", "command"]) {
      if (key in answer) shown.info[key] = answer[key];
    }
    if (wasRunning && shown.info.state !== "running") void this.refresh();
    this.renderView();
  }

  // --- input -------------------------------------------------------------------------------

  private type(data: string): void {
    if (!this.writable()) return;
    this.typed += data;
    if (this.typingTimer === undefined) {
      this.typingTimer = window.setTimeout(() => void this.flush(), TYPING_BATCH_MS);
    }
  }

  private async flush(): Promise<void> {
    this.typingTimer = undefined;
    const shown = this.selected;
    const link = this.link;
    if (!shown || !link || !this.typed) return;
    if (this.writing) {
      this.typingTimer = window.setTimeout(() => void this.flush(), TYPING_BATCH_MS);
      return;
    }
    const input = this.typed.slice(0, INPUT_CHUNK);
    this.typed = this.typed.slice(input.length);
    this.writing = true;
    try {
      // Its answer's output is not shown here: the terminal shows the output from the offsets.
      await link.call("process_input", {
        process_id: shown.id, input, wait_ms: 0,
        stdout_offset: shown.stdoutOffset, stderr_offset: shown.stderrOffset,
      }, 30_000);
    } catch (error) {
      if (this.selected === shown) this.say((error as Error).message, "bad");
      if (!(error instanceof ToolFailure)) this.onLinkFailure(error);
    } finally {
      this.writing = false;
    }
    if (this.typed && this.selected === shown && this.typingTimer === undefined) {
      this.typingTimer = window.setTimeout(() => void this.flush(), 0);
    }
  }

  // --- kill --------------------------------------------------------------------------------

  private askKill(): void {
    const shown = this.selected;
    if (!shown || this.killing) return;
    this.dom.confirmTitle.textContent = `Kill ${shown.id}?`;
    this.dom.confirmText.textContent =
      `${shown.id} (${String(shown.info.command ?? "")}) and everything it started get TERM, then ` +
      "KILL 2 s later if anything of it is left. Its output stays readable.";
    this.dom.confirmYes.textContent = `Kill ${shown.id}`;
    this.dom.confirm.hidden = false;
    this.dom.kill.disabled = true;
    this.dom.confirmNo.focus();
  }

  private closeConfirm(focus = true): void {
    const open = !this.dom.confirm.hidden;
    this.dom.confirm.hidden = true;
    this.dom.kill.disabled = this.killing || !this.link;
    if (open && focus && !this.dom.kill.hidden) this.dom.kill.focus();
  }

  private async kill(): Promise<void> {
    const shown = this.selected;
    const link = this.link;
    this.closeConfirm(false);
    if (!shown || !link || this.killing) return;
    this.killing = true;
    this.renderView();
    this.say(`Ending ${shown.id}…`, "info");
    try {
      const answer = await link.call("process_signal", {
        process_id: shown.id, signal: "TERM",
        stdout_offset: shown.stdoutOffset, stderr_offset: shown.stderrOffset,
      }, 30_000);
      if (this.selected === shown) {
        this.say(answer.state === "running" ? `${shown.id} still runs.` : `${shown.id} ended (${formatOutcome(answer)}).`,
                 answer.state === "running" ? "bad" : "ok");
      }
    } catch (error) {
      if (this.selected === shown) this.say((error as Error).message, "bad");
      if (!(error instanceof ToolFailure)) this.onLinkFailure(error);
    } finally {
      this.killing = false;
    }
    this.renderView();
    await this.refresh();
    this.followSelected();
  }

  // `source`: a failure of the list's or the output's reads, cleared by the next one that works.
  private say(text: string, tone?: "ok" | "bad" | "info", source?: "list" | "output"): void {
    this.dom.status.textContent = text;
    if (tone && text) this.dom.status.dataset.tone = tone;
    else this.dom.status.removeAttribute("data-tone");
    if (source && text) this.dom.status.dataset.source = source;
    else delete this.dom.status.dataset.source;
  }
}
