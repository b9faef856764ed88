// End-to-end check with the official MCP TypeScript client v2 (@modelcontextprotocol/client),
// which speaks both the 2025 revisions (initialize, sessions) and the stateless 2026-07-28
// revision (server/discover, a _meta envelope on every request, subscriptions/listen).
//
// Usage: node v2_client.mjs <host binary> [host arguments...]
// For each transport (stdio: the client spawns the host; Streamable HTTP: the host started
// with --transport http on a free loopback port) and each negotiation mode ('legacy', 'auto',
// { pin: '2026-07-28' }) the client connects to a host of its own and checks the era it got,
// lists the tools, runs a first command that creates the computer (its progress reaches
// onprogress), writes and reads a file, cancels a `sleep 30` (the next command runs at once
// and no `sleep 30` is left in the computer), lists the resources and reads the MCP App's
// `ui://` page. When the desktop tools are there (the host started with the desktop image and
// DESKTOP_ENVIRONMENT=true), it switches the desktop off and on and checks that the tool list
// follows with notifications/tools/list_changed (in the stateless era, on a
// subscriptions/listen stream). Exits non-zero on any mismatch, printing what it saw.
import { spawnSync } from "node:child_process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { checks, sleep, waitFor } from "./desktop_session.mjs";
import { startHttpHost } from "./http_host.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node v2_client.mjs <host binary> [arguments...]");
  process.exit(2);
}
const { expect, error, report } = checks();

const modes = [
  { mode: "legacy", name: "legacy", era: "legacy" },
  { mode: "auto", name: "auto", era: "modern" },
  { mode: { pin: "2026-07-28" }, name: "pin 2026-07-28", era: "modern" },
];
const callOptions = { timeout: 300_000 };
const desktopProbe = "look_at_screen";

// A Docker computer is persistent: start from none and leave none behind. Every connection
// below works on the same computer.
const computerId = process.env.COMPUTER_ID ?? "e2e-v2-client";
const docker = args.includes("docker");
function removeComputer() {
  if (docker) spawnSync("docker", ["rm", "-f", `kilntainer-${computerId}`], { stdio: "ignore" });
}
removeComputer();
const hostEnv = { ...process.env, COMPUTER_ID: computerId };

// Whether a process whose command line is exactly `sleep 30` runs in the computer, read from
// the outside with the docker CLI (the computer runs one command at a time, so the tool cannot
// look while the sleep runs). Without Docker: assume it started after a moment.
async function sleepRunning() {
  if (!docker) {
    await sleep(1500);
    return true;
  }
  const listing = spawnSync("docker", ["exec", `kilntainer-${computerId}`, "sh", "-c",
                                       "for p in /proc/[0-9]*; do tr '\\0' ' ' <$p/cmdline 2>/dev/null; echo; done"],
                            { encoding: "utf8" });
  return (listing.stdout ?? "").split("\n").some((line) => line.trim() === "sleep 30");
}

// `pgrep -f 'sleep 30'` in the computer, with the command lines it finds; the brackets keep it
// (and the /proc scan that stands in for it on an image without procps, such as
// debian:bookworm-slim) from finding the shell that runs this script.
const findSleep =
  "if command -v pgrep >/dev/null 2>&1; then pgrep -af 'sleep [3]0'; else " +
  "for p in /proc/[0-9]*; do line=$(tr '\\0' ' ' <$p/cmdline 2>/dev/null); " +
  "case \"$line\" in sleep\\ [3]0\\ *) echo \"${p#/proc/} $line\";; esac; done; fi; true";

// The host over HTTP: it logs "serving MCP over HTTP on http://127.0.0.1:PORT/mcp" once it
// listens.

// One client in one mode over one transport, through every check.
async function exercise(transportName, makeTransport, { mode, name, era }) {
  const label = `[${transportName} ${name}]`;
  console.log(`--- ${label}`);
  const changes = { tools: 0, resources: 0, subscriptionIds: new Set() };
  const heard = (kind) => (notification) => {
    changes[kind] += 1;
    const id = notification.params?._meta?.["io.modelcontextprotocol/subscriptionId"];
    if (id !== undefined) changes.subscriptionIds.add(JSON.stringify(id));
  };
  const client = new Client({ name: "vc-e2e-v2-client", version: "1.0.0" }, {
    versionNegotiation: { mode, probe: { timeoutMs: 5000 } },
    capabilities: {},
  });
  client.setNotificationHandler("notifications/tools/list_changed", heard("tools"));
  client.setNotificationHandler("notifications/resources/list_changed", heard("resources"));
  const call = (name, argumentsObject = {}, options = {}) =>
    client.callTool({ name, arguments: argumentsObject }, { ...callOptions, ...options });
  const toolNames = async () => (await client.listTools()).tools.map((tool) => tool.name);

  try {
    await client.connect(makeTransport());
    expect(client.getProtocolEra() === era,
           `${label} getProtocolEra() is '${era}' (${client.getProtocolEra()}, version ` +
           `${client.getNegotiatedProtocolVersion()})`);
    expect(client.getServerVersion()?.name === "MCP Virtual Computer",
           `${label} the server names itself (${JSON.stringify(client.getServerVersion())})`);
    if (era === "modern") {
      const discover = client.getDiscoverResult();
      console.log(`${label} server/discover:`, JSON.stringify(discover));
      expect(discover?.supportedVersions?.includes("2026-07-28"),
             `${label} server/discover offers 2026-07-28`);
      const ping = await client.ping().then(() => "answered", (e) => `rejected: ${e?.message ?? e}`);
      expect(ping.startsWith("rejected"), `${label} ping is a 2025 method, not sent in the stateless era (${ping})`);
    } else {
      await client.ping();
      expect(true, `${label} ping answers in a 2025 session`);
      const listen = await client.listen({ toolsListChanged: true })
        .then(() => "opened", (e) => `rejected: ${e?.message ?? e}`);
      expect(listen.startsWith("rejected"), `${label} subscriptions/listen needs the stateless era (${listen})`);
    }

    const listed = await client.listTools();
    const tools = listed.tools;
    console.log(`${label} tools:`, tools.map((tool) => tool.name).join(", "));
    const terminal = tools.find((tool) => tool.name === "terminal_execute");
    expect(terminal?.inputSchema?.type === "object" && terminal?.outputSchema?.type === "object",
           `${label} tools/list has terminal_execute with its schemas`);
    for (const tool of ["read_file", "write_file", "runtime_status", "set_desktop_environment"]) {
      expect(tools.some((each) => each.name === tool), `${label} tools/list has ${tool}`);
    }
    if (era === "modern") {
      // Cache hints (docs/protocol.md): the tool list changes with the desktop, so it is not kept.
      expect(listed.ttlMs === 0 && listed.cacheScope === "public",
             `${label} tools/list says ttlMs 0, cacheScope public (${listed.ttlMs}, ${listed.cacheScope})`);
    }

    // The computer does not exist yet: the first command creates it, and its call receives the
    // progress of that. The client checks every structuredContent below against the tool's
    // outputSchema.
    const progress = [];
    const executed = await call("terminal_execute", { command: "echo v2-ok; echo err >&2; exit 3" },
                                { onprogress: (update) => progress.push(update) });
    console.log(`${label} terminal_execute:`, JSON.stringify(executed.structuredContent));
    expect(executed.isError === false && executed.structuredContent?.stdout === "v2-ok\n" &&
           executed.structuredContent?.stderr === "err\n" &&
           executed.structuredContent?.exit_code === 3,
           `${label} terminal_execute: stdout 'v2-ok\\n', stderr 'err\\n', exit code 3`);
    expect(progress.length > 0 && progress.every((update) => typeof update.progress === "number"),
           `${label} onprogress received the computer's creation before the result ` +
           `(${progress.length}: ${JSON.stringify(progress.slice(0, 3))})`);

    const content = `written over ${transportName} in mode ${name}\nquotes ' " $(no) é\n`;
    const path = `e2e-v2/${transportName}-${era}-${name.replace(/[^a-z0-9]+/g, "-")}.txt`;
    const written = await call("write_file", { path, content });
    expect(written.isError === false && written.structuredContent?.path === `/workspace/${path}`,
           `${label} write_file resolves the path (${JSON.stringify(written.structuredContent)})`);
    const read = await call("read_file", { path });
    expect(read.structuredContent?.content === content &&
           read.structuredContent?.sha256 === written.structuredContent?.sha256,
           `${label} read_file gives back what write_file wrote`);

    // Cancel a long command: the client aborts its request.
    const controller = new AbortController();
    const long = call("terminal_execute", { command: "sleep 30" }, { signal: controller.signal });
    const outcome = long.then(() => "answered", (e) => `rejected: ${e?.message ?? e}`);
    let running = false;
    for (let i = 0; i < 100 && !running; i++) {
      running = await sleepRunning();
      if (!running) await sleep(100);
    }
    expect(running, `${label} sleep 30 runs in the computer`);
    controller.abort("the test cancels it");
    const cancelled = await outcome;
    expect(cancelled.startsWith("rejected"), `${label} the cancelled call did not answer (${cancelled})`);
    const started = Date.now();
    const next = await call("terminal_execute", { command: "echo after" });
    const took = Date.now() - started;
    expect(next.structuredContent?.stdout === "after\n" && took < 10_000,
           `${label} the next command runs at once (${took} ms)`);
    const left = await call("terminal_execute", { command: findSleep });
    expect(left.structuredContent?.stdout === "",
           `${label} pgrep -f 'sleep 30' finds nothing (${JSON.stringify(left.structuredContent?.stdout)})`);

    // The MCP App's page: named by the tools' _meta.ui.resourceUri, listed, readable.
    const uiUri = terminal?._meta?.ui?.resourceUri;
    const resources = (await client.listResources()).resources;
    console.log(`${label} resources:`, resources.map((resource) => resource.uri).join(", "));
    const appUri = uiUri ?? resources.find((resource) => resource.uri.startsWith("ui://"))?.uri;
    expect(typeof appUri === "string" && appUri.startsWith("ui://"),
           `${label} the tools name the App's ui:// resource (${appUri})`);
    expect(resources.some((resource) => resource.uri === appUri),
           `${label} resources/list has ${appUri}`);
    const page = await client.readResource({ uri: appUri }, { cacheMode: "bypass" });
    const first = page.contents?.[0] ?? {};
    expect(first.uri === appUri && first.mimeType === "text/html;profile=mcp-app" &&
           /<html/i.test(first.text ?? ""),
           `${label} resources/read gives the App's HTML (${first.mimeType}, ${(first.text ?? "").length} chars)`);
    if (era === "modern") {
      expect(page.ttlMs === 3_600_000 && page.cacheScope === "public",
             `${label} the App's page may be kept an hour (ttlMs ${page.ttlMs}, cacheScope ${page.cacheScope})`);
    }

    // The tool list follows the desktop.
    const names = await toolNames();
    if (!names.includes(desktopProbe)) {
      console.log(`${label} no desktop tools in this configuration: the list change is not checked`);
      return;
    }
    let subscription;
    if (client.getProtocolEra() === "modern") {
      subscription = await client.listen({ toolsListChanged: true, resourcesListChanged: true });
      expect(subscription.honoredFilter?.toolsListChanged === true &&
             subscription.honoredFilter?.resourcesListChanged === true,
             `${label} subscriptions/listen acknowledged (${JSON.stringify(subscription.honoredFilter)})`);
    }
    const before = { ...changes };
    const off = await call("set_desktop_environment", { enabled: false });
    expect(off.isError === false && off.structuredContent?.desktop_environment === false,
           `${label} set_desktop_environment off (${JSON.stringify(off.structuredContent)})`);
    await waitFor(() => changes.tools > before.tools && changes.resources > before.resources, 10,
                  "the list changes after switching the desktop off").catch(() => {});
    expect(changes.tools > before.tools && changes.resources > before.resources,
           `${label} switching the desktop off sends tools/list_changed and resources/list_changed`);
    const headless = await toolNames();
    expect(!headless.includes(desktopProbe) && headless.includes("terminal_execute"),
           `${label} tools/list has no desktop tools while the desktop is off`);
    const between = { ...changes };
    const on = await call("set_desktop_environment", { enabled: true });
    expect(on.isError === false && on.structuredContent?.desktop_environment === true,
           `${label} set_desktop_environment on (${JSON.stringify(on.structuredContent)})`);
    await waitFor(() => changes.tools > between.tools, 10,
                  "the list change after switching the desktop on").catch(() => {});
    expect(changes.tools > between.tools, `${label} switching it on sends tools/list_changed again`);
    expect((await toolNames()).includes(desktopProbe), `${label} the desktop tools are back`);
    if (subscription) {
      // The stateless era has no session to send them on: they came on the listen's stream.
      expect(changes.subscriptionIds.size === 1,
             `${label} the changes name the subscription (${[...changes.subscriptionIds]})`);
      await subscription.close();
      expect((await subscription.closed) === "local", `${label} the subscription closes`);
    }
  } catch (caught) {
    error(`${label} ${caught?.stack ?? caught}`);
  } finally {
    await client.close().catch(() => {});
  }
}

// Every connection starts from no computer, so that its first command creates one.
for (const each of modes) {
  removeComputer();
  await exercise("stdio", () => new StdioClientTransport({
    command, args, env: hostEnv, stderr: "inherit",
  }), each);
}
for (const each of modes) {
  removeComputer();
  let host;
  try {
    host = await startHttpHost(command, args, { env: hostEnv });
    console.log("host:", host.url);
    await exercise("http", () => new StreamableHTTPClientTransport(new URL(host.url)), each);
  } catch (caught) {
    error(caught);
  } finally {
    host?.host.kill("SIGTERM");
  }
  if (host) {
    const code = await host.exited;
    expect(code === 0, `[http ${each.name}] the host exited cleanly on SIGTERM (${code})`);
  }
}
removeComputer();
report();
