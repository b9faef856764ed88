// The live desktop: noVNC on the computer's WebSocket bridge. Watch-only until the person
// takes control; reconnects by itself (with a growing pause) while the desktop is on; tells
// the page what it is doing through onState.
import RFB from "@novnc/novnc";
import type { DesktopAddress } from "./desktop_address";

export type ViewState = "off" | "connecting" | "connected" | "retrying" | "refused";

const FIRST_RETRY_MS = 800;
const LONGEST_RETRY_MS = 8_000;

export class DesktopView {
  private rfb: any = null;
  private address: DesktopAddress | null = null;
  private retryTimer: number | undefined;
  private retryMs = FIRST_RETRY_MS;
  private control = false;
  state: ViewState = "off";
  failures = 0;  // attempts in a row that did not connect
  firstFrameAt: number | null = null;

  constructor(private readonly target: HTMLElement,
              private readonly onState: (state: ViewState, detail?: string) => void) {}

  // Shows the desktop at `address`, or nothing when null. The same address keeps the open
  // connection.
  show(address: DesktopAddress | null): void {
    if (address?.screen === this.address?.screen && (this.rfb || this.retryTimer)) return;
    this.stop();
    this.address = address;
    if (!address) {
      this.setState("off");
      return;
    }
    this.retryMs = FIRST_RETRY_MS;
    this.connect();
  }

  setControl(control: boolean): void {
    this.control = control;
    if (this.rfb) {
      this.rfb.viewOnly = !control;
      if (control) this.rfb.focus();
    }
  }

  // The canvas noVNC draws into, for tests and screenshots.
  canvas(): HTMLCanvasElement | null {
    return this.target.querySelector("canvas");
  }

  private connect(): void {
    if (!this.address) return;
    this.retryTimer = undefined;
    this.setState("connecting");
    let rfb: any;
    try {
      rfb = new RFB(this.target, this.address.screen, { shared: true, credentials: { password: "" } });
    } catch (error) {
      this.scheduleRetry(String((error as Error).message ?? error));
      return;
    }
    rfb.viewOnly = !this.control;
    rfb.scaleViewport = true;
    rfb.resizeSession = false;
    rfb.focusOnClick = true;
    rfb.background = "#1b1f24";
    rfb.addEventListener("connect", () => {
      this.retryMs = FIRST_RETRY_MS;
      this.failures = 0;
      this.firstFrameAt = this.firstFrameAt ?? performance.now();
      this.setState("connected");
    });
    rfb.addEventListener("disconnect", () => {
      if (this.rfb !== rfb) return;
      this.rfb = null;
      this.scheduleRetry("the connection to the desktop closed");
    });
    rfb.addEventListener("securityfailure", (event: any) => {
      this.setState("refused", String(event?.detail?.reason ?? "the desktop refused the connection"));
    });
    rfb.addEventListener("credentialsrequired", () => rfb.sendCredentials({ password: "" }));
    this.rfb = rfb;
  }

  private scheduleRetry(reason: string): void {
    if (!this.address) return;
    this.failures += 1;
    this.setState("retrying", reason);
    this.retryTimer = window.setTimeout(() => this.connect(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, LONGEST_RETRY_MS);
  }

  private stop(): void {
    if (this.retryTimer !== undefined) window.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const rfb = this.rfb;
    this.rfb = null;
    if (rfb) {
      try {
        rfb.disconnect();
      } catch {
        // already closed
      }
    }
  }

  private setState(state: ViewState, detail?: string): void {
    this.state = state;
    this.onState(state, detail);
  }
}
