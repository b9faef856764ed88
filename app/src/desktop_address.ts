// Where the live desktop is, from the desktop_url every payload carries while Xfce is on:
//   http://127.0.0.1:<port>/vnc.html#autoconnect=1&resize=scale&reconnect=1&path=websockify%3Ftoken%3D<secret>
// The App speaks to the same bridge directly: the screen through ws://127.0.0.1:<port>/<path>,
// the sound through the same path with the secret + "-audio" (docs/app.md, "Sound").
export interface DesktopAddress {
  screen: string;  // the VNC WebSocket URL (holds the secret: never shown or logged)
  sound: string;   // the sound WebSocket URL (likewise)
  origin: string;  // ws://127.0.0.1:<port>, safe to show
}

export function desktopAddress(desktopUrl: unknown): DesktopAddress | null {
  if (typeof desktopUrl !== "string" || desktopUrl === "") return null;
  let url: URL;
  try {
    url = new URL(desktopUrl);
  } catch {
    return null;
  }
  const fragment = new URLSearchParams(url.hash.replace(/^#/, ""));
  const path = fragment.get("path") ?? "websockify";
  const scheme = url.protocol === "https:" ? "wss:" : "ws:";
  const origin = `${scheme}//${url.host}`;
  const screen = `${origin}/${path.replace(/^\//, "")}`;
  const withToken = new URL(screen);
  const token = withToken.searchParams.get("token");
  if (token === null) return null;
  withToken.searchParams.set("token", `${token}-audio`);
  return { screen, sound: withToken.toString(), origin };
}
