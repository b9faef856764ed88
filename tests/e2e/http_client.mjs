// End-to-end check with the official MCP TypeScript client over Streamable HTTP.
//
// Usage: node http_client.mjs <host binary> [host arguments...]
// Starts the host with --transport http on a free loopback port, connects with
// StreamableHTTPClientTransport, lists the tools, runs a command and receives its progress,
// cancels a `sleep 1000` and checks that the process is gone from the computer, ends the
// session with DELETE and checks that the session id then gets 404. Exits non-zero on any
// mismatch, printing what it saw.
import { spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startHttpHost } from "./http_host.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node http_client.mjs <host binary> [arguments...]");
  process.exit(2);
}

const failures = [];
function expect(condition, what) {
  if (!condition) failures.push(what);
  console.log(`${condition ? "ok  " : "FAIL"} ${what}`);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A Docker computer is persistent: start from none and leave none behind.
const computerId = process.env.COMPUTER_ID ?? "e2e-http";
const docker = args.includes("docker");
function removeComputer() {
  if (docker) spawnSync("docker", ["rm", "-f", `kilntainer-${computerId}`], { stdio: "ignore" });
}
removeComputer();

const { host, url } = await startHttpHost(command, args, { env: { ...process.env, COMPUTER_ID: computerId } });
console.log("host:", url);

const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: "vc-e2e-http-client", version: "1.0.0" }, { capabilities: {} });

// Names of the processes in the computer, read from the outside with the docker CLI: the
// computer runs one command at a time, so the tool cannot look while `sleep 1000` runs.
function processNames() {
  const listing = spawnSync("docker", ["exec", `kilntainer-${computerId}`, "sh", "-c",
                                       "for p in /proc/[0-9]*; do cat $p/comm 2>/dev/null; done"],
                            { encoding: "utf8" });
  return (listing.stdout ?? "").split("\n").filter(Boolean);
}

try {
  await client.connect(transport);
  const sessionId = transport.sessionId;
  expect(typeof sessionId === "string" && sessionId.length >= 16, "initialize gave a session id");
  expect(client.getServerVersion()?.name === "MCP Virtual Computer", "serverInfo.name");

  const tools = (await client.listTools()).tools;
  expect(tools.some((tool) => tool.name === "terminal_execute"), "tools/list has terminal_execute");

  const progress = [];
  const result = await client.callTool(
    { name: "terminal_execute", arguments: { command: "echo e2e-http-ok; cat /etc/debian_version" } },
    undefined,
    { onprogress: (update) => progress.push(update), timeout: 300000 },
  );
  console.log("result:", JSON.stringify(result.structuredContent));
  expect(result.isError === false, "the command succeeded");
  expect(result.structuredContent?.stdout?.startsWith("e2e-http-ok\n"), "stdout came back");
  expect(progress.length > 0, `progress notifications arrived before the result (${progress.length})`);

  // Cancel a long command: the SDK sends notifications/cancelled when the signal aborts.
  const controller = new AbortController();
  const long = client.callTool(
    { name: "terminal_execute", arguments: { command: "sleep 1000", timeout: 2000 } },
    undefined,
    { signal: controller.signal, timeout: 300000 },
  );
  let sleeping = false;
  for (let i = 0; i < 50 && !sleeping; i++) {
    await sleep(200);
    sleeping = processNames().includes("sleep");
  }
  expect(sleeping, "sleep 1000 is running in the computer");
  controller.abort("the test cancels it");
  const outcome = await long.then(() => "answered", (error) => `rejected: ${error?.message ?? error}`);
  expect(outcome.startsWith("rejected"), `the cancelled call did not answer (${outcome})`);
  let gone = false;
  for (let i = 0; i < 50 && !gone; i++) {
    await sleep(200);
    gone = !processNames().includes("sleep");
  }
  expect(gone, "the cancelled sleep is gone from the computer");
  const next = await client.callTool({ name: "terminal_execute", arguments: { command: "echo after" } });
  expect(next.structuredContent?.stdout === "after\n", "the computer runs the next command");

  // The network switch on a real container; the client checks each result against the
  // tool's outputSchema.
  const offline = await client.callTool({ name: "set_network_access", arguments: { enabled: false } });
  expect(offline.isError === false && offline.structuredContent?.network_access === false,
         "set_network_access turns the network off");
  const status = await client.callTool({ name: "runtime_status", arguments: {} });
  expect(status.structuredContent?.network_access === false &&
         status.structuredContent?.computer_attached === true,
         "runtime_status reports the computer attached and offline");
  const online = await client.callTool({ name: "set_network_access", arguments: { enabled: true } });
  expect(online.structuredContent?.network_access === true, "set_network_access turns it on again");

  await transport.terminateSession();
  const after = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "ping" }),
  });
  expect(after.status === 404, `the ended session gets 404 (got ${after.status})`);
} catch (error) {
  failures.push(`client error: ${error?.stack ?? error}`);
  console.log("FAIL", error?.stack ?? error);
} finally {
  await client.close().catch(() => {});
  host.kill("SIGTERM");
}

const code = await new Promise((resolve) => host.on("exit", (exitCode) => resolve(exitCode)));
expect(code === 0, `the host exited cleanly on SIGTERM (${code})`);
removeComputer();
if (failures.length > 0) {
  console.error(`${failures.length} check(s) failed`);
  process.exit(1);
}
console.log("all end-to-end checks passed");
