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
