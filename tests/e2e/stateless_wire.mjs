// The 2026-07-28 wire by hand, for what the official clients do not speak yet (the tasks
// extension): JSON-RPC requests with the revision's envelope in params._meta and its headers
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name), answers read from a JSON or an SSE body, and
// subscriptions/listen streams.
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

let nextId = 1;

// The body and headers of a 2026 request; `tasks`: whether it declares the tasks extension.
function request(method, params = {}, { tasks = true } = {}) {
  const capabilities = tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
  const body = {
    jsonrpc: "2.0", id: nextId++, method,
    params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                  "io.modelcontextprotocol/clientCapabilities": capabilities,
                                  "io.modelcontextprotocol/clientInfo": { name: "vc-e2e-wire", version: "1" } } },
  };
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
                    "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method };
  const name = params.name ?? params.taskId;
  if (name !== undefined) headers["Mcp-Name"] = name;
  return { body, headers };
}

// Every JSON-RPC message of an SSE or JSON body.
function messagesOf(text, contentType) {
  if (!contentType.includes("text/event-stream")) return text ? [JSON.parse(text)] : [];
  return text.split(/\r?\n/).filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trim()).filter(Boolean).map((data) => JSON.parse(data));
}

// Sends one request to `url` and returns its answer (the JSON-RPC response object).
export async function statelessCall(url, method, params, options) {
  const { body, headers } = request(method, params, options);
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const messages = messagesOf(await response.text(), response.headers.get("content-type") ?? "");
  const answer = messages.find((message) => message.id === body.id);
  if (!answer) throw new Error(`${method}: no answer (HTTP ${response.status})`);
  return answer;
}

// Opens subscriptions/listen on `url`; `notifications` collects what arrives until close().
export function statelessListen(url, filter) {
  const { body, headers } = request("subscriptions/listen", { notifications: filter });
  const controller = new AbortController();
  const notifications = [];
  const done = (async () => {
    const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body),
                                        signal: controller.signal });
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of response.body) {
      buffered += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffered.indexOf("\n\n")) >= 0) {
        notifications.push(...messagesOf(buffered.slice(0, end), "text/event-stream"));
        buffered = buffered.slice(end + 2);
      }
    }
  })().catch((failure) => { if (failure.name !== "AbortError") throw failure; });
  return { notifications, close: async () => { controller.abort(); await done; } };
}
