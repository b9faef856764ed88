// The checkpoints tab: the computer's files saved under a name (checkpoint_list,
// checkpoint_create, checkpoint_restore, checkpoint_delete). A restore or a delete is asked
// in the page first (the standalone page's client cannot be asked by the server). Where the
// server offers no checkpoints (a backend without them, or switched off), the tab stays hidden.
import type { Payload, ServerLink } from "./link";
import { ToolFailure } from "./link";

// The server's rule for a checkpoint name.
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const SLOW_MS = 900_000;  // a large computer takes minutes to save or restore

export function nameProblem(name: string): string | null {
  if (NAME_PATTERN.test(name)) return null;
  const rule = "Use 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit " +
               "(for example before-upgrade).";
  if (!name) return `Type a name for the checkpoint. ${rule}`;
  if (name.length > 63) return `That name is too long. ${rule}`;
  return `"${name}" cannot be a checkpoint name. ${rule}`;
}

// Sizes as the engine's own listing shows them (powers of 1000).
export function formatSize(bytes: unknown): string {
  const value = Number(bytes);
  if (!Number.isFinite(value) || value < 0) return "size unknown";
  if (value < 1000) return `${value} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let scaled = value;
  let unit = -1;
  while (scaled >= 1000 && unit < units.length - 1) {
    scaled /= 1000;
    unit += 1;
  }
  return `${scaled < 10 ? scaled.toFixed(1) : Math.round(scaled)} ${units[unit]}`;
}

// When it was taken, in the person's local time.
export function formatWhen(created: unknown): string {
  const date = new Date(String(created));
  if (Number.isNaN(date.getTime())) return String(created ?? "");
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

// The answer of a server (or a chat client) that has no such tool.
function isUnknownTool(error: unknown): boolean {
  return error instanceof ToolFailure &&
    /unknown tool|tool not found|no such tool|not found: checkpoint_|has no checkpoints/i.test(error.message);
}

export interface CheckpointsElements {
  tab: HTMLButtonElement;
  panel: HTMLElement;
  form: HTMLFormElement;
  name: HTMLInputElement;
  create: HTMLButtonElement;
  status: HTMLElement;
  list: HTMLElement;
  empty: HTMLElement;
  confirm: HTMLElement;
  confirmTitle: HTMLElement;
  confirmText: HTMLElement;
  confirmYes: HTMLButtonElement;
  confirmNo: HTMLButtonElement;
}

type Action = "restore" | "delete";

export class CheckpointsPanel {
  private link: ServerLink | null = null;
  private busy = false;
  private request = 0;  // only the newest listing is shown
  private listFailed = false;  // the status line holds a listing's failure
  private pending: { action: Action; name: string; from: HTMLButtonElement } | null = null;

  // `onChanged`: the computer itself changed (a restore), so the page asks for its state;
  // `onUnavailable`: the server has no checkpoints, and the tab was just hidden.
  constructor(private readonly dom: CheckpointsElements,
              private readonly onLinkFailure: (error: unknown) => void,
              private readonly onChanged: () => void,
              private readonly onUnavailable: () => void) {
    dom.form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.create();
    });
    dom.name.addEventListener("input", () => {
      dom.name.removeAttribute("aria-invalid");
      if (dom.status.dataset.tone === "bad" && !this.busy) this.say("");
    });
    dom.confirmYes.addEventListener("click", () => void this.confirmed());
    dom.confirmNo.addEventListener("click", () => this.closeConfirm());
    dom.confirm.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        this.closeConfirm();
      }
    });
  }

  // Finds out whether the server has checkpoints: the tab appears only when it does.
  attach(link: ServerLink | null): void {
    this.link = link;
    this.setBusy(false);
    if (link) void this.refresh(true);
  }

  // The tab was opened.
  shown(): void {
    void this.refresh();
  }

  async refresh(probing = false): Promise<void> {
    if (!this.link) return;
    const request = ++this.request;
    try {
      const listing = await this.link.call("checkpoint_list", {}, 60_000);
      if (request !== this.request) return;
      this.dom.tab.hidden = false;
      if (this.listFailed) this.say("");
      this.listFailed = false;
      this.render(Array.isArray(listing.checkpoints) ? listing.checkpoints : []);
    } catch (error) {
      if (request !== this.request) return;
      if (isUnknownTool(error)) {
        this.dom.tab.hidden = true;
        this.onUnavailable();
        return;
      }
      // The tools exist; the computer could not answer now (not started yet, engine away).
      this.dom.tab.hidden = false;
      if (!probing) {
        this.listFailed = true;
        this.say((error as Error).message, "bad");
      }
      if (!(error instanceof ToolFailure)) this.onLinkFailure(error);
    }
  }

  private async create(): Promise<void> {
    if (!this.link || this.busy) return;
    const name = this.dom.name.value.trim();
    const problem = nameProblem(name);
    if (problem) {
      this.say(problem, "bad");
      this.dom.name.setAttribute("aria-invalid", "true");
      this.dom.name.focus();
      return;
    }
    this.dom.name.removeAttribute("aria-invalid");
    await this.run(`Saving checkpoint ${name}…`, async (link) => {
      await link.call("checkpoint_create", { name }, SLOW_MS);
      this.dom.name.value = "";
      return `Saved checkpoint ${name}.`;
    });
  }

  private ask(action: Action, name: string, from: HTMLButtonElement): void {
    if (this.busy) return;
    this.pending = { action, name, from };
    this.say("");
    if (action === "restore") {
      this.dom.confirmTitle.textContent = `Restore ${name}?`;
      this.dom.confirmText.textContent =
        `The computer's files go back to how they were when ${name} was taken: files changed ` +
        "since then are lost, and running programs end. The desktop reconnects by itself.";
      this.dom.confirmYes.textContent = `Restore ${name}`;
    } else {
      this.dom.confirmTitle.textContent = `Delete ${name}?`;
      this.dom.confirmText.textContent =
        `The checkpoint ${name} is deleted; the computer's files are not touched.`;
      this.dom.confirmYes.textContent = `Delete ${name}`;
    }
    this.dom.confirm.hidden = false;
    this.setBusy(this.busy);
    this.dom.confirmNo.focus();
  }

  private closeConfirm(): void {
    const from = this.pending?.from;
    this.pending = null;
    this.dom.confirm.hidden = true;
    this.setBusy(this.busy);
    if (from?.isConnected) from.focus();
  }

  private async confirmed(): Promise<void> {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    this.dom.confirm.hidden = true;
    const { action, name } = pending;
    if (action === "restore") {
      await this.run(`Restoring ${name}…`, async (link) => {
        await link.call("checkpoint_restore", { name }, SLOW_MS);
        return `Restored ${name}: the files are as they were when it was taken; programs that ` +
               "were running must be started again.";
      });
      this.onChanged();
    } else {
      await this.run(`Deleting ${name}…`, async (link) => {
        await link.call("checkpoint_delete", { name }, 120_000);
        return `Deleted checkpoint ${name}.`;
      });
    }
  }

  // One action at a time, with its progress and the server's answer in the status line; the
  // list is read again afterwards, whatever the answer.
  private async run(progress: string, act: (link: ServerLink) => Promise<string>): Promise<void> {
    const link = this.link;
    if (!link || this.busy) return;
    this.setBusy(true);
    this.say(progress, "info");
    let done: string | null = null;
    try {
      done = await act(link);
    } catch (error) {
      this.say((error as Error).message, "bad");
      if (!(error instanceof ToolFailure)) this.onLinkFailure(error);
    } finally {
      this.setBusy(false);
    }
    if (done) this.say(done, "ok");
    await this.refresh();
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    const locked = busy || this.link === null || this.pending !== null;
    this.dom.create.disabled = locked;
    this.dom.panel.setAttribute("aria-busy", String(busy));
    for (const button of this.dom.list.querySelectorAll<HTMLButtonElement>("button")) button.disabled = locked;
  }

  private say(text: string, tone?: "ok" | "bad" | "info"): void {
    this.dom.status.textContent = text;
    if (tone && text) this.dom.status.dataset.tone = tone;
    else this.dom.status.removeAttribute("data-tone");
  }

  private render(checkpoints: Payload[]): void {
    this.dom.list.replaceChildren();
    // Newest first: the one just taken is at hand.
    for (const checkpoint of [...checkpoints].reverse()) {
      const name = String(checkpoint.name ?? "");
      const item = document.createElement("li");
      item.dataset.name = name;
      const about = document.createElement("div");
      about.className = "about";
      const title = document.createElement("span");
      title.className = "name";
      title.textContent = name;
      const facts = document.createElement("span");
      facts.className = "facts";
      const when = document.createElement("time");
      when.dateTime = String(checkpoint.created ?? "");
      when.textContent = formatWhen(checkpoint.created);
      const parts = [formatSize(checkpoint.size_bytes),
                     checkpoint.processes ? "files and processes" : "files only"];
      if (checkpoint.desktop_environment === true) parts.push("desktop on");
      else if (checkpoint.desktop_environment === false) parts.push("desktop off");
      facts.append(when, ` · ${parts.join(" · ")}`);
      about.append(title, facts);
      const actions = document.createElement("div");
      actions.className = "actions";
      const restore = document.createElement("button");
      restore.type = "button";
      restore.className = "restore";
      restore.textContent = "Restore";
      restore.setAttribute("aria-label", `Restore ${name}`);
      restore.addEventListener("click", () => this.ask("restore", name, restore));
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "delete";
      remove.textContent = "Delete";
      remove.setAttribute("aria-label", `Delete ${name}`);
      remove.addEventListener("click", () => this.ask("delete", name, remove));
      actions.append(restore, remove);
      item.append(about, actions);
      this.dom.list.append(item);
    }
    this.dom.empty.hidden = checkpoints.length > 0;
    this.dom.tab.textContent = checkpoints.length > 0 ? `Checkpoints (${checkpoints.length})` : "Checkpoints";
    this.setBusy(this.busy);
  }
}
