// How the App reaches the server's tools, whichever way it was opened:
//  - hosted: inside a chat client's iframe, through the client (the MCP Apps bridge);
//  - standalone: as /dashboard.html of the HTTP transport, with its own MCP client to /mcp.
// Both hand back the tool's structuredContent, and a failure as a ToolFailure whose message
// a person can read.
import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export type Payload = Record<string, any>;

export class ToolFailure extends Error {
  constructor(message: string, readonly payload?: Payload) {
    super(message);
  }
}

// The server could not be reached at all, or refused the token.
export class LinkFailure extends Error {
  constructor(message: string, readonly unauthorized = false) {
    super(message);
  }
}

export interface ServerLink {
  readonly mode: "hosted" | "standalone";
  call(name: string, args?: Payload, timeoutMs?: number): Promise<Payload>;
  close(): Promise<void>;
}

export const APP_INFO = { name: "mcp-virtual-computer-app", version: "0.1.0" };

// A CallToolResult's payload: structuredContent, else the JSON of its first text content.
export function payloadOf(result: any): Payload {
  if (result && typeof result.structuredContent === "object" && result.structuredContent !== null) {
    return result.structuredContent as Payload;
  }
  const text = Array.isArray(result?.content)
    ? result.content.find((item: any) => item?.type === "text")?.text
    : undefined;
  if (typeof text === "string") {
    try {
      const parsed = JSON.parse(text);
      if (parsed && typeof parsed === "object") return parsed as Payload;
    } catch {
      // not JSON: an error message in plain text
    }
    return result?.isError ? { error: text } : { text };
  }
  return {};
}

function checked(name: string, result: any): Payload {
  const payload = payloadOf(result);
  if (result?.isError || typeof payload.error === "string") {
    throw new ToolFailure(typeof payload.error === "string" ? payload.error : `${name} failed`, payload);
  }
  return payload;
}

export class HostedLink implements ServerLink {
  readonly mode = "hosted" as const;
  private constructor(readonly app: App) {}

  // Connects to the chat client hosting this frame; `beforeConnect` installs the App's
  // notification handlers, which must exist before the handshake.
  static async open(beforeConnect: (app: App) => void): Promise<HostedLink> {
    const app = new App(APP_INFO, {}, { autoResize: true });
    beforeConnect(app);
    await app.connect(new PostMessageTransport(window.parent, window.parent));
    return new HostedLink(app);
  }

  async call(name: string, args: Payload = {}, timeoutMs = 120_000): Promise<Payload> {
    let result;
    try {
      result = await this.app.callServerTool({ name, arguments: args }, { timeout: timeoutMs });
    } catch (error) {
      throw new ToolFailure(`${name}: ${(error as Error).message}`);
    }
    return checked(name, result);
  }

  async close(): Promise<void> {
    await this.app.close();
  }
}

export class StandaloneLink implements ServerLink {
  readonly mode = "standalone" as const;
  private constructor(private readonly client: Client, readonly endpoint: URL) {}

  static async open(endpoint: URL, token: string | null): Promise<StandaloneLink> {
    const client = new Client(APP_INFO, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(endpoint, {
      authProvider: { token: async () => token ?? undefined },
    });
    try {
      await client.connect(transport);
    } catch (error) {
      throw describeConnectFailure(error, endpoint);
    }
    return new StandaloneLink(client, endpoint);
  }

  async call(name: string, args: Payload = {}, timeoutMs = 120_000): Promise<Payload> {
    let result;
    try {
      result = await this.client.callTool({ name, arguments: args }, { timeout: timeoutMs });
    } catch (error) {
      const failure = describeConnectFailure(error, this.endpoint);
      if (failure.unauthorized || isNetworkError(error)) throw failure;
      throw new ToolFailure(`${name}: ${(error as Error).message}`);
    }
    return checked(name, result);
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}

function isNetworkError(error: unknown): boolean {
  const text = String((error as Error)?.message ?? error);
  return error instanceof TypeError || /fetch failed|Failed to fetch|NetworkError|ECONNREFUSED/i.test(text);
}

function describeConnectFailure(error: unknown, endpoint: URL): LinkFailure {
  const text = String((error as Error)?.message ?? error);
  const name = String((error as Error)?.name ?? "");
  if (/Unauthori[sz]ed|401/.test(text) || /Unauthori[sz]ed/.test(name)) {
    return new LinkFailure("The server refused the access token.", true);
  }
  if (isNetworkError(error)) {
    return new LinkFailure(
      `Cannot reach the server at ${endpoint.origin}. Is mcp-virtual-computer still running?`);
  }
  return new LinkFailure(`The server at ${endpoint.origin} answered unexpectedly: ${text}`);
}
