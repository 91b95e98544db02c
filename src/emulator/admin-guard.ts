// Who may call the admin API.
// Spec: docs/emulator.md, Admin API.
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

/** Why an admin request is refused: status and message; undefined when it may go on. */
export function adminRefusal(req: IncomingMessage): { status: number; error: string } | undefined {
  const port = req.socket.localPort ?? 0;
  const listening = req.socket.localAddress ?? "";
  const own = (host: string, hostPort: string | undefined) =>
    isOwnHost(host, listening) && (hostPort === undefined ? port === 80 : Number(hostPort) === port);
  const hostHeader = req.headers.host ?? "";
  const host = splitHost(hostHeader);
  if (!host || !own(host.name, host.port)) {
    return {
      status: 403,
      error:
        `the admin API answers only requests to this machine by a loopback address with the port ` +
        `(127.0.0.1:${port}, localhost:${port} or [::1]:${port}); the Host header ` +
        `${JSON.stringify(hostHeader.slice(0, 100))} is not one`,
    };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, own)) {
    return {
      status: 403,
      error:
        `the admin API refuses requests from another origin (Origin: ${JSON.stringify(origin.slice(0, 100))}): ` +
        "a web page may not change the emulator",
    };
  }
  const hasBody = Number(req.headers["content-length"] ?? "0") > 0 || req.headers["transfer-encoding"] !== undefined;
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (hasBody && type !== "application/json") {
    return {
      status: 415,
      error:
        `the admin API takes JSON bodies only: send Content-Type: application/json (got ` +
        `${JSON.stringify(type.slice(0, 100) || "none")}; with curl, --json '{…}')`,
    };
  }
  return undefined;
}

/** `name[:port]` or `[v6][:port]`; undefined when it is neither. */
function splitHost(value: string): { name: string; port?: string } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!m) return undefined;
  return { name: m[1]!.toLowerCase(), ...(m[2] !== undefined ? { port: m[2] } : {}) };
}

/** A loopback name or address, or the (non-wildcard) address the emulator listens on. */
function isOwnHost(name: string, listening: string): boolean {
  const bare = name.startsWith("[") ? name.slice(1, -1) : name;
  if (bare === "localhost" || bare === "::1") return true;
  if (isIP(bare) === 4 && bare.startsWith("127.")) return true;
  // An IPv4 address an IPv6 socket shows as ::ffff:a.b.c.d.
  const local = listening.replace(/^::ffff:/i, "");
  return isIP(bare) !== 0 && bare === local && local !== "0.0.0.0" && local !== "::";
}

function isOwnOrigin(origin: string, own: (host: string, port: string | undefined) => boolean): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" || url.pathname !== "/" || origin.endsWith("/")) return false;
  return own(url.hostname.toLowerCase(), url.port === "" ? undefined : url.port);
}
