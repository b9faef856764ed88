// What the desktop end-to-end clients share: the official MCP TypeScript client on the real
// host over stdio, the calls an agent makes, checks that are counted, and screenshots kept as
// artifacts.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Checks that are counted; `report()` prints the summary and sets the exit code.
export function checks() {
  let passed = 0;
  const failures = [];
  return {
    failures,
    expect(condition, what) {
      if (condition) passed += 1;
      else failures.push(what);
      console.log(`${condition ? "ok  " : "FAIL"} ${what}`);
      return Boolean(condition);
    },
    error(error) {
      failures.push(`error: ${error?.stack ?? error}`);
      console.log("FAIL", error?.stack ?? error);
    },
    report() {
      console.log(`${passed} passed, ${failures.length} failed`);
      if (failures.length > 0) {
        console.log("failures:\n  " + failures.join("\n  "));
        process.exitCode = 1;
      }
    },
  };
}

// Polls `predicate` every 250 ms until it gives a truthy value (returned) or `seconds` passed.
export async function waitFor(predicate, seconds, what) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

export function imageOf(answer) {
  return (answer.content ?? []).find((item) => item.type === "image");
}

// A client of the host `command args` for the desktop computer `computerId`.
export function desktopSession({ command, args, computerId, clientName, env = {} }) {
  const artifacts = process.env.VC_ARTIFACT_DIR ?? "artifacts";
  mkdirSync(artifacts, { recursive: true });
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...process.env, COMPUTER_ID: computerId, DESKTOP_ENVIRONMENT: "true", ...env },
    stderr: "inherit",
  });
  const client = new Client({ name: clientName, version: "1.0.0" }, { capabilities: {} });

  async function raw(name, argumentsObject = {}, options = {}) {
    return client.callTool({ name, arguments: argumentsObject }, undefined,
                           { timeout: 600_000, ...options });
  }
  async function call(name, argumentsObject = {}) {
    const answer = await raw(name, argumentsObject);
    if (answer.isError) {
      throw new Error(`${name} ${JSON.stringify(argumentsObject).slice(0, 300)} failed: ` +
                      JSON.stringify(answer.structuredContent ?? answer.content).slice(0, 600));
    }
    return answer;
  }
  async function payload(name, argumentsObject = {}) {
    return (await call(name, argumentsObject)).structuredContent ?? {};
  }
  // The error message of a call expected to fail (null when it did not fail).
  async function failure(name, argumentsObject = {}) {
    try {
      const answer = await raw(name, argumentsObject);
      if (!answer.isError) return null;
      return answer.structuredContent?.error ?? answer.content?.[0]?.text ?? "";
    } catch (error) {
      return String(error?.message ?? error);
    }
  }
  async function windows() {
    return (await payload("list_windows")).windows ?? [];
  }
  function saveImage(item, name) {
    const extension = { "image/jpeg": "jpg", "image/webp": "webp" }[item.mimeType] ?? "png";
    const path = join(artifacts, `${computerId}-${name}.${extension}`);
    writeFileSync(path, Buffer.from(item.data, "base64"));
    console.log(`screenshot: ${path}`);
  }
  async function close() {
    try {
      await client.callTool({ name: "computer_delete", arguments: { computer_id: computerId } });
    } catch {}
    await client.close().catch(() => {});
  }
  return { client, transport, raw, call, payload, failure, windows, saveImage, close };
}
