// A chat client's side of the MCP Apps protocol, for the hosted-mode browser test: the
// ext-apps SDK's AppBridge renders the App's HTML (from resources/read) in a sandboxed iframe
// under the CSP the resource declares, and forwards the App's requests to the real server
// through `window.vcHost`, which the test (holding the official MCP client) provides.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

declare global {
  interface Window {
    vcHost(method: string, params: unknown): Promise<any>;
    vcShowApp(html: string, csp: Record<string, string[]>, toolResult: unknown): Promise<void>;
    vcHarness: { initialized: boolean; calls: string[]; policy: string };
  }
}

window.vcHarness = { initialized: false, calls: [], policy: "" };

// The policy a client applies from _meta.ui.csp (the MCP Apps specification's defaults:
// inline script and style, nothing else unless declared).
function policyFor(csp: Record<string, string[]>): string {
  const connect = ["'none'"];
  if (csp.connectDomains?.length) connect.splice(0, 1, ...csp.connectDomains);
  const resources = (csp.resourceDomains ?? []).join(" ");
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: blob: ${resources}`.trim(),
    `font-src data: ${resources}`.trim(),
    "media-src blob:",
    `connect-src ${connect.join(" ")}`,
  ].join("; ");
}

function withPolicy(html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, "&quot;")}">`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => head + meta) : meta + html;
}

window.vcShowApp = async (html, csp, toolResult) => {
  const policy = policyFor(csp);
  window.vcHarness.policy = policy;
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.setAttribute("title", "Virtual Computer");
  frame.srcdoc = withPolicy(html, policy);
  document.getElementById("app-slot")!.append(frame);
  await new Promise((resolve) => frame.addEventListener("load", resolve, { once: true }));

  const bridge = new AppBridge(null, { name: "vc-test-chat-client", version: "1.0.0" },
                               { serverTools: {}, serverResources: {}, openLinks: {} });
  bridge.setHostContext({ theme: "light", displayMode: "inline",
                          availableDisplayModes: ["inline", "fullscreen"], locale: "en-US" });
  bridge.oncalltool = async (params) => {
    window.vcHarness.calls.push(params.name);
    return window.vcHost("tools/call", params);
  };
  bridge.onreadresource = async (params) => window.vcHost("resources/read", params);
  bridge.onlistresources = async (params) => window.vcHost("resources/list", params ?? {});
  bridge.onrequestdisplaymode = async (params) => ({ mode: params.mode });
  // As chat clients do: the frame takes the height the App asks for.
  bridge.onsizechange = ({ height }) => {
    if (typeof height === "number" && height > 0) frame.style.height = `${Math.ceil(height)}px`;
  };
  bridge.oninitialized = () => {
    window.vcHarness.initialized = true;
    void bridge.sendToolInput({ arguments: {} });
    void bridge.sendToolResult(toolResult as any);
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
};
