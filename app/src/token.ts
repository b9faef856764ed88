// The standalone page's access token. It arrives in the URL fragment (#token=...), which the
// browser never sends to a server, and is removed from the address bar at once so that it
// does not stay in the history or a copied link; or a person types it into the lock form.
// It is kept for this tab only (sessionStorage) and never put into a query string or a log.
const KEY = "mcp-virtual-computer.token";

export function takeTokenFromFragment(): string | null {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const token = fragment.get("token");
  if (token === null) return null;
  fragment.delete("token");
  const rest = fragment.toString();
  history.replaceState(null, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
  return token;
}

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string | null): void {
  try {
    if (token === null) sessionStorage.removeItem(KEY);
    else sessionStorage.setItem(KEY, token);
  } catch {
    // storage refused (a sandboxed frame): the token lives in memory only
  }
}
