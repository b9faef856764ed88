// The terminal tab: a person runs a command in the computer, as the agent would
// (terminal_execute in the workspace), and sees its output and exit code.
import type { ServerLink } from "./link";
import { ToolFailure } from "./link";

export class TerminalPanel {
  private link: ServerLink | null = null;

  constructor(private readonly form: HTMLFormElement, private readonly input: HTMLInputElement,
              private readonly output: HTMLElement, private readonly run: HTMLButtonElement,
              private readonly onLinkFailure: (error: unknown) => void) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.execute();
    });
  }

  attach(link: ServerLink | null): void {
    this.link = link;
    this.run.disabled = link === null;
  }

  private async execute(): Promise<void> {
    const command = this.input.value.trim();
    if (!command || !this.link) return;
    this.run.disabled = true;
    this.append(`$ ${command}\n`);
    try {
      const result = await this.link.call("terminal_execute", { command });
      this.append(String(result.stdout ?? ""));
      if (result.stderr) this.append(String(result.stderr), "err");
      this.append(`[exit ${result.exit_code} · ${result.exec_duration_ms} ms]\n`);
      this.input.select();
    } catch (error) {
      this.append(`${(error as Error).message}\n`, "err");
      if (!(error instanceof ToolFailure)) this.onLinkFailure(error);
    } finally {
      this.run.disabled = this.link === null;
    }
  }

  private append(text: string, className?: string): void {
    if (!text) return;
    const span = document.createElement("span");
    if (className) span.className = className;
    span.textContent = text.endsWith("\n") || className !== "err" ? text : `${text}\n`;
    this.output.append(span);
    this.output.scrollTop = this.output.scrollHeight;
  }
}
