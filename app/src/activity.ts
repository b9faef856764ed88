// The activity panel: every command and file change on the computer as it happens, whoever
// made it (the agent, another client, this page). Fed by the server's `read_activity` tool,
// a long poll: each call returns as soon as something new happened, or after 20 s.
import type { Payload, ServerLink } from "./link";
import { LinkFailure } from "./link";

interface ActivityEvent {
  revision: number;
  phase: "request" | "result";
  operation: string;
  arguments: Payload;
  payload: Payload | null;
}

interface Item {
  key: string;
  element: HTMLLIElement;
  done: boolean;
}

const MAX_ITEMS = 100;
const WAIT_MS = 20_000;

export class ActivityPanel {
  private revision = 0;
  private items: Item[] = [];
  private running = false;

  constructor(private readonly list: HTMLElement, private readonly empty: HTMLElement,
              private readonly onLinkFailure: (failure: LinkFailure) => void,
              private readonly onEvent: (event: ActivityEvent) => void) {}

  start(link: ServerLink): void {
    if (this.running) return;
    this.running = true;
    void this.poll(link);
  }

  stop(): void {
    this.running = false;
  }

  private async poll(link: ServerLink): Promise<void> {
    let pause = 1_000;
    while (this.running) {
      try {
        const answer = await link.call("read_activity", { after: this.revision, wait_ms: WAIT_MS },
                                       WAIT_MS + 15_000);
        pause = 1_000;
        const events = Array.isArray(answer.events) ? (answer.events as ActivityEvent[]) : [];
        // A server that restarted counts from 0 again: start over rather than wait forever.
        if (typeof answer.revision === "number" && answer.revision < this.revision) {
          this.revision = 0;
          continue;
        }
        for (const event of events) this.add(event);
        if (typeof answer.revision === "number") this.revision = answer.revision;
      } catch (error) {
        if (error instanceof LinkFailure) this.onLinkFailure(error);
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause = Math.min(pause * 2, 10_000);
      }
    }
  }

  private add(event: ActivityEvent): void {
    if (event.revision <= this.revision) return;
    this.onEvent(event);
    const key = `${event.operation} ${JSON.stringify(event.arguments ?? {})}`;
    if (event.phase === "result") {
      const pending = this.items.find((item) => !item.done && item.key === key);
      if (pending) {
        pending.done = true;
        renderResult(pending.element, event);
        return;
      }
    }
    const element = document.createElement("li");
    element.dataset.operation = event.operation;
    renderRequest(element, event);
    const item = { key, element, done: event.phase === "result" };
    if (event.phase === "result") renderResult(element, event);
    this.items.push(item);
    this.list.prepend(element);
    this.empty.hidden = true;
    while (this.items.length > MAX_ITEMS) this.items.shift()?.element.remove();
  }
}

function text(tag: string, className: string, content: string): HTMLElement {
  const element = document.createElement(tag);
  element.className = className;
  element.textContent = content;
  return element;
}

const KINDS: Record<string, string> = {
  terminal_execute: "command", read_file: "read", write_file: "write", edit_file: "edit",
  list_directory: "folder", set_network_access: "network", set_desktop_environment: "desktop",
};

function describe(event: ActivityEvent): string {
  const args = event.arguments ?? {};
  switch (event.operation) {
    case "terminal_execute":
      if (typeof args.command === "string") return args.command;
      if (Array.isArray(args.args)) return args.args.map((part: unknown) => String(part)).join(" ");
      return "(command)";
    case "set_network_access":
      return args.enabled ? "switch the network on" : "switch the network off";
    case "set_desktop_environment":
      return args.enabled ? "switch the desktop on" : "switch the desktop off";
    default:
      return typeof args.path === "string" ? args.path : event.operation;
  }
}

function renderRequest(element: HTMLLIElement, event: ActivityEvent): void {
  const head = document.createElement("div");
  head.className = "head";
  head.append(text("span", "kind", KINDS[event.operation] ?? event.operation),
              text("span", "what", describe(event)),
              text("span", "outcome", "running…"));
  element.append(head);
}

function renderResult(element: HTMLLIElement, event: ActivityEvent): void {
  const payload = event.payload ?? {};
  const outcome = element.querySelector<HTMLElement>(".outcome");
  if (!outcome) return;
  if (typeof payload.error === "string") {
    outcome.textContent = "failed";
    outcome.dataset.tone = "bad";
    element.append(text("pre", "", payload.error));
    return;
  }
  switch (event.operation) {
    case "terminal_execute": {
      const code = Number(payload.exit_code);
      outcome.textContent = `exit ${code} · ${Number(payload.exec_duration_ms ?? 0)} ms`;
      outcome.dataset.tone = code === 0 ? "ok" : "warn";
      const output = document.createElement("pre");
      output.textContent = String(payload.stdout ?? "");
      if (payload.stderr) {
        const stderr = document.createElement("span");
        stderr.className = "err";
        stderr.textContent = String(payload.stderr);
        output.append(stderr);
      }
      if (output.textContent) element.append(output);
      break;
    }
    case "read_file":
    case "write_file":
      outcome.textContent = `${Number(payload.size_bytes ?? 0)} ${Number(payload.size_bytes) === 1 ? "byte" : "bytes"}`;
      outcome.dataset.tone = "ok";
      break;
    case "edit_file":
      outcome.textContent = `${Number(payload.replacements ?? 0)} replaced`;
      outcome.dataset.tone = "ok";
      break;
    case "list_directory": {
      const count = Array.isArray(payload.entries) ? payload.entries.length : 0;
      outcome.textContent = `${count} ${count === 1 ? "entry" : "entries"}`;
      outcome.dataset.tone = "ok";
      break;
    }
    default:
      outcome.textContent = "done";
      outcome.dataset.tone = "ok";
  }
}
