// The files tab: the computer's folders (list_directory) and a viewer for text files
// (read_file), with a shortcut to each host folder mounted in the computer (the "mounts" of
// computer_ui / runtime_status, docs/mounts.md).
import type { Payload, ServerLink } from "./link";
import { ToolFailure } from "./link";

export class FilesPanel {
  private link: ServerLink | null = null;
  private current = "/workspace";
  private listed = false;
  private request = 0;  // only the newest listing or file is shown

  constructor(private readonly form: HTMLFormElement, private readonly pathInput: HTMLInputElement,
              private readonly up: HTMLButtonElement, private readonly list: HTMLElement,
              private readonly viewName: HTMLElement, private readonly view: HTMLElement,
              private readonly onLinkFailure: (error: unknown) => void) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.open(this.pathInput.value.trim() || "/");
    });
    up.addEventListener("click", () => void this.open(parentOf(this.current)));
  }

  // The computer's mounts, as computer_ui or runtime_status lists them: one button each, that
  // opens the mounted folder; hidden when there are none.
  showMounts(mounts: unknown, holder: HTMLElement): void {
    holder.replaceChildren();
    const entries = Array.isArray(mounts) ? mounts : [];
    const usable = entries.filter((entry): entry is { computer_path: string; host_path?: string; read_only?: boolean } =>
      typeof entry === "object" && entry !== null && typeof (entry as { computer_path?: unknown }).computer_path === "string");
    holder.hidden = usable.length === 0;
    if (usable.length === 0) return;
    holder.append("Host folders:");
    for (const mount of usable) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "mount";
      button.textContent = `${mount.computer_path}${mount.read_only ? " (read-only)" : ""}`;
      button.title = `${mount.host_path ?? ""} on the host, mounted at ${mount.computer_path}`;
      button.addEventListener("click", () => void this.open(mount.computer_path));
      holder.append(button);
    }
  }

  attach(link: ServerLink | null, workspace?: string): void {
    this.link = link;
    if (workspace) {
      this.current = workspace;
      this.pathInput.value = workspace;
    }
  }

  // The first time the tab is shown, its folder is listed.
  shown(): void {
    if (!this.listed && this.link) {
      this.listed = true;
      void this.open(this.current);
    }
  }

  async open(path: string): Promise<void> {
    if (!this.link) return;
    const request = ++this.request;
    try {
      const listing = await this.link.call("list_directory", { path });
      if (request !== this.request) return;
      this.current = String(listing.path ?? path);
      // Not while the person is typing another path into it.
      if (document.activeElement !== this.pathInput) this.pathInput.value = this.current;
      this.render(Array.isArray(listing.entries) ? listing.entries : []);
    } catch (error) {
      if (request === this.request) this.showText(path, (error as Error).message, true);
      if (!(error instanceof ToolFailure)) this.onLinkFailure(error);
    }
  }

  private render(entries: Payload[]): void {
    this.list.replaceChildren();
    const sorted = [...entries].sort((a, b) =>
      (a.kind === "directory" ? 0 : 1) - (b.kind === "directory" ? 0 : 1) ||
      String(a.name).localeCompare(String(b.name)));
    for (const entry of sorted) {
      const item = document.createElement("li");
      const name = document.createElement("span");
      name.className = "name";
      name.textContent = entry.kind === "directory" ? `${entry.name}/` : String(entry.name);
      item.dataset.kind = String(entry.kind);
      item.append(name);
      if (entry.kind === "file") {
        const size = document.createElement("span");
        size.className = "size";
        size.textContent = `${entry.size_bytes ?? 0} B`;
        item.append(size);
      }
      item.dataset.path = String(entry.path);
      item.addEventListener("click", () => {
        if (entry.kind === "directory") void this.open(String(entry.path));
        else void this.show(String(entry.path));
      });
      this.list.append(item);
    }
    if (sorted.length === 0) {
      const item = document.createElement("li");
      item.className = "empty";
      item.textContent = "This folder is empty.";
      this.list.append(item);
    }
  }

  private async show(path: string): Promise<void> {
    if (!this.link) return;
    const request = ++this.request;
    try {
      const file = await this.link.call("read_file", { path });
      if (request !== this.request) return;
      this.showText(String(file.path ?? path), String(file.content ?? ""), false);
    } catch (error) {
      this.showText(path, (error as Error).message, true);
      if (!(error instanceof ToolFailure)) this.onLinkFailure(error);
    }
  }

  private showText(name: string, content: string, failed: boolean): void {
    this.viewName.textContent = name;
    this.view.hidden = false;
    this.view.replaceChildren();
    const span = document.createElement("span");
    if (failed) span.className = "err";
    span.textContent = content;
    this.view.append(span);
  }
}

function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  const cut = trimmed.lastIndexOf("/");
  return cut <= 0 ? "/" : trimmed.slice(0, cut);
}
