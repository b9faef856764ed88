// mcp_http.mjs — the HTTP side of the benchmarks that load the host over Streamable HTTP:
// one JSON-RPC message POSTed on a keep-alive agent, its answer read from JSON or SSE.

import http from "node:http";

// POSTs `message` to `url` (a URL) over `agent`, with the session id and extra headers given.
// Resolves to {status, session (the Mcp-Session-Id answered), messages (every JSON-RPC message
// of the body, in order)}.
export function postMcp(url, agent, message, { session, headers: extra = {} } = {}) {
  const body = JSON.stringify(message);
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream",
                    "content-length": Buffer.byteLength(body), ...extra };
  if (session) headers["mcp-session-id"] = session;
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST",
                                   headers, agent }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => {
        const messages = response.headers["content-type"]?.startsWith("text/event-stream")
          ? text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)))
          : text ? [JSON.parse(text)] : [];
        resolve({ status: response.statusCode, session: response.headers["mcp-session-id"], messages });
      });
    });
    request.on("error", reject);
    request.end(body);
  });
}
