// The emulator for the bench: `zoneform emulator` from dist/ in a child process (so its CPU and memory
// are not the measured command's), and its admin API.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const CLI = new URL("../../dist/cli/zoneform.js", import.meta.url).pathname;

export async function startEmulator({ latencyMs = 0 } = {}) {
  const child = spawn(process.execPath, [CLI, "emulator", "--port", "0", "--latency", String(latencyMs)], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NODE_OPTIONS: "--max-old-space-size=4096" },
  });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the emulator exited (${code}) before printing its URL`)));
    lines.once("line", resolve);
  });
  lines.on("line", () => {});
  const origin = new URL(url).origin;
  async function admin(method, path, body, retried = false) {
    let res;
    try {
      res = await fetch(`${origin}/__emulator${path}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      // A kept-alive connection the server closed while we were busy: once more on a new one.
      if (retried) throw err;
      return admin(method, path, body, true);
    }
    const text = await res.text();
    if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  }
  return {
    url,
    admin,
    async close() {
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", resolve)));
    },
  };
}
