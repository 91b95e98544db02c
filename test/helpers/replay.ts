// A replay server for the conformance suite: answers each `METHOD path` with a recorded real answer
// (status and body as recorded), over real HTTP on 127.0.0.1, and logs every request it gets.
// Anything not recorded is a 404 in the API's envelope, so a read zoneform should not make shows up.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync, readdirSync } from "node:fs";

const RECORDED_DIR = new URL("../fixtures/recorded/", import.meta.url);

export interface Recorded {
  id: string;
  provenance: string;
  source: string;
  recorded_request?: { method: string; url: string };
  status: number;
  body: Record<string, unknown> & { result?: unknown };
}

export function loadRecorded(name: string): Recorded {
  return JSON.parse(readFileSync(new URL(`${name}.json`, RECORDED_DIR), "utf8")) as Recorded;
}

export function recordedNames(): string[] {
  return readdirSync(RECORDED_DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -5))
    .sort();
}

interface ReplayedRequest {
  method: string;
  path: string;
  query: string;
  body: unknown;
}

interface Answer {
  status: number;
  body: unknown;
}

export interface ReplayServer {
  /** API base, e.g. http://127.0.0.1:PORT/client/v4 */
  url: string;
  requests: ReplayedRequest[];
  /** Sets the answer of `METHOD path` (path relative to the API base, no query). */
  answer(method: string, path: string, answer: Answer): void;
  close(): Promise<void>;
}

const BASE = "/client/v4/";

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? undefined : JSON.parse(text);
}

export async function startReplay(): Promise<ReplayServer> {
  const answers = new Map<string, Answer>();
  const requests: ReplayedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) : url.pathname;
      requests.push({ method: req.method ?? "GET", path, query: url.search, body: await readBody(req) });
      const found = answers.get(`${req.method} ${path}`) ?? {
        status: 404,
        body: { success: false, errors: [{ code: 10003, message: "not recorded" }], messages: [], result: null },
      };
      res.writeHead(found.status, { "content-type": "application/json" });
      res.end(JSON.stringify(found.body));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/client/v4`,
    requests,
    answer: (method, path, answer) => void answers.set(`${method} ${path}`, answer),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Serves a recorded answer at the path it was recorded on (or `path`, for a fixture without a request). */
export function serveRecorded(server: ReplayServer, rec: Recorded, path?: string): string {
  const at = path ?? new URL(rec.recorded_request!.url).pathname.replace(/^\/client\/v4\//, "");
  server.answer(rec.recorded_request?.method ?? "GET", at, { status: rec.status, body: rec.body });
  return at;
}
