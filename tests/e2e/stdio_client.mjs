// End-to-end check with the official MCP TypeScript client over stdio.
//
// Usage: node stdio_client.mjs <host binary> [host arguments...]
// Spawns the host, connects (initialize + initialized), lists every tool page, runs one
// command through terminal_execute and checks the structured result. Exits non-zero on any
// mismatch, printing what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node stdio_client.mjs <host binary> [arguments...]");
  process.exit(2);
}

const failures = [];
function expect(condition, what) {
  if (!condition) failures.push(what);
  console.log(`${condition ? "ok  " : "FAIL"} ${what}`);
}

const transport = new StdioClientTransport({
  command,
  args,
  env: { ...process.env, COMPUTER_ID: process.env.COMPUTER_ID ?? "e2e-test" },
  stderr: "inherit",
});
const client = new Client({ name: "vc-e2e-client", version: "1.0.0" }, { capabilities: {} });

try {
  await client.connect(transport);
  const server = client.getServerVersion();
  console.log("server:", JSON.stringify(server));
  expect(server?.name === "MCP Virtual Computer", "serverInfo.name is 'MCP Virtual Computer'");

  await client.ping();

  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  console.log("tools:", tools.map((tool) => tool.name).join(", "));
  const terminal = tools.find((tool) => tool.name === "terminal_execute");
  expect(terminal !== undefined, "tools/list has terminal_execute");
  expect(terminal?.inputSchema?.type === "object", "terminal_execute has an object inputSchema");
  expect(terminal?.outputSchema?.type === "object", "terminal_execute has an object outputSchema");

  const result = await client.callTool({
    name: "terminal_execute",
    arguments: { command: "echo e2e-ok; echo err >&2; exit 3" },
  });
  console.log("result:", JSON.stringify(result));
  const structured = result.structuredContent ?? {};
  expect(result.isError === false, "isError is false for a non-zero exit");
  expect(structured.stdout === "e2e-ok\n", "structuredContent.stdout is 'e2e-ok\\n'");
  expect(structured.stderr === "err\n", "structuredContent.stderr is 'err\\n'");
  expect(structured.exit_code === 3, "structuredContent.exit_code is 3");
  const text = result.content?.[0]?.text ?? "";
  expect(JSON.stringify(JSON.parse(text)) === JSON.stringify(structured),
         "the text content is the structured content as JSON");

  // The SDK client checks every structuredContent below against the tool's outputSchema.
  const names = tools.map((tool) => tool.name).join(",");
  expect(names === "terminal_execute,computer_ui,runtime_status,set_network_access," +
                   "set_desktop_environment,list_directory,read_file,write_file,edit_file," +
                   "read_activity",
         "tools/list has the original's tools in its order, then the App's read_activity");
  const call = async (name, args = {}) => {
    const answer = await client.callTool({ name, arguments: args });
    console.log(`${name}:`, JSON.stringify(answer.structuredContent));
    expect(answer.isError === false, `${name} succeeds`);
    return answer.structuredContent ?? {};
  };
  const status = await call("runtime_status");
  expect(status.computer_attached === true && status.runtime_state === "ready",
         "runtime_status: attached and ready");
  const ui = await call("computer_ui");
  expect(ui.computer_id === status.computer_id && ui.workspace_directory === "/workspace",
         "computer_ui names the computer and its workspace");
  const content = "line one\nquotes ' \" $(no) é\n";
  const written = await call("write_file", { path: "e2e/notes.txt", content });
  expect(written.path === "/workspace/e2e/notes.txt", "write_file resolves the path");
  const read = await call("read_file", { path: "e2e/notes.txt" });
  expect(read.content === content && read.sha256 === written.sha256, "read_file round-trips");
  const edited = await call("edit_file", { path: "e2e/notes.txt", old_text: "one", new_text: "1" });
  expect(edited.replacements === 1, "edit_file replaces one occurrence");
  const listing = await call("list_directory", { path: "e2e" });
  expect(listing.entries?.[0]?.name === "notes.txt", "list_directory shows the file");
  // The process backend has no network to switch: a clear error, not a crash.
  const network = await client.callTool({ name: "set_network_access", arguments: { enabled: false } });
  expect(network.isError === true &&
         network.structuredContent?.error === "The process backend does not support set_network_access.",
         "set_network_access on the process backend says it is unsupported");
} catch (error) {
  failures.push(`client error: ${error?.stack ?? error}`);
  console.log("FAIL", error?.stack ?? error);
} finally {
  await client.close().catch(() => {});
}

if (failures.length > 0) {
  console.error(`${failures.length} check(s) failed`);
  process.exit(1);
}
console.log("all end-to-end checks passed");
