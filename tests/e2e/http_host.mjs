// http_host.mjs — starts the host over Streamable HTTP on a free loopback port, for the
// clients that drive it over HTTP: the host logs "serving MCP over HTTP on
// http://127.0.0.1:PORT/mcp" once it listens, and that is the URL they use.
import { spawn } from "node:child_process";

// Starts `command args --transport http --port 0` with `env`; its stderr goes to ours, each
// chunk after `logPrefix`. Resolves to {host, url, exited} once it listens; rejects when it
// exits first or does not listen within a minute.
export async function startHttpHost(command, args, { env = process.env, logPrefix = "" } = {}) {
  const host = spawn(command, [...args, "--transport", "http", "--port", "0"],
                     { env, stdio: ["ignore", "inherit", "pipe"] });
  const exited = new Promise((resolve) => host.on("exit", (code) => resolve(code)));
  const url = await new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`the host did not start:\n${log}`)), 60000);
    host.stderr.on("data", (chunk) => {
      process.stderr.write(logPrefix ? `${logPrefix}${chunk}` : chunk);
      log += chunk;
      const match = log.match(/serving MCP over HTTP on (http:\/\/[^\s]+\/mcp)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    host.on("exit", (code) => reject(new Error(`the host exited with ${code}:\n${log}`)));
  });
  return { host, url, exited };
}
