// What the bench's start-up and per-request targets cost without zoneform, measured in the same run on the same
// machine (issue 39: a missed target is listed with its measured reason):
//   - yamlFloor: a process that only loads the yaml package (bundled as the CLI bundles it, from Node's compile
//     cache as the CLI reads it) and parses one file with the options zoneform parses with;
//   - httpFloor: a process that only sends requests to the emulator, as many at once as a plan, with undici's
//     Agent and request API (the classes zoneform sends with) and with Node's own node:http, and reports its CPU
//     per request after a warm-up, the way the bench counts a plan's.
import { build } from "esbuild";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SHARED_DEFINES, yamlWithoutEnvReads } from "../bundle-plugins.mjs";

const ROOT = new URL("../..", import.meta.url).pathname;

/** Writes the floor programs into `dir`; returns their paths. */
export async function writeFloorPrograms(dir) {
  const yamlEntry = join(dir, "floor-yaml-entry.mjs");
  const yamlParse = join(dir, "floor-yaml-parse.mjs");
  const yaml = join(dir, "floor-yaml.mjs");
  writeFileSync(
    yamlEntry,
    `import { LineCounter, parseDocument } from "yaml";
import { readFileSync } from "node:fs";
const doc = parseDocument(readFileSync(process.argv[2], "utf8"), {
  lineCounter: new LineCounter(), uniqueKeys: true, merge: true, prettyErrors: false, strict: true, logLevel: "error",
});
if (doc.errors.length > 0) throw new Error(String(doc.errors[0]));
doc.toJS({ maxAliasCount: 100 });
`,
  );
  await build({
    entryPoints: [yamlEntry],
    outfile: yamlParse,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    define: SHARED_DEFINES,
    plugins: [yamlWithoutEnvReads()],
    nodePaths: [join(ROOT, "node_modules")],
    logLevel: "error",
  });
  // As dist/cli/zoneform.js starts: Node's compile cache on, then the code imported.
  writeFileSync(
    yaml,
    `import module from "node:module";
module.enableCompileCache?.();
await import(${JSON.stringify(yamlParse)});
`,
  );

  const http = join(dir, "floor-http.mjs");
  writeFileSync(
    http,
    `import httpModule from "node:http";
import process from "node:process";
import AgentClass from ${JSON.stringify(join(ROOT, "node_modules/undici/lib/dispatcher/agent.js"))};
import request from ${JSON.stringify(join(ROOT, "node_modules/undici/lib/api/api-request.js"))};
const [, , client, baseUrl, token, inFlight, total] = process.argv;
const base = new URL(baseUrl);
const path = base.pathname.replace(/\\/+$/, "") + "/zones?per_page=50";
const headers = { authorization: "Bearer " + token, accept: "application/json", "accept-encoding": "identity" };
let one;
if (client === "undici") {
  const agent = new AgentClass({ connections: Number(inFlight) });
  one = async () => {
    const r = await request.call(agent, { origin: base.origin, path, method: "GET", headers });
    JSON.parse(await r.body.text());
  };
} else {
  const agent = new httpModule.Agent({ keepAlive: true, maxSockets: Number(inFlight) });
  one = () => new Promise((resolve, reject) => {
    const q = httpModule.request({ host: base.hostname, port: base.port, path, agent, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => { JSON.parse(Buffer.concat(chunks).toString("utf8")); resolve(); });
      res.on("error", reject);
    });
    q.on("error", reject);
    q.end();
  });
}
const round = () => Promise.all(Array.from({ length: Number(inFlight) }, one));
for (let i = 0; i < 4; i++) await round();
const before = process.cpuUsage();
const rounds = Math.ceil(Number(total) / Number(inFlight));
for (let i = 0; i < rounds; i++) await round();
const used = process.cpuUsage(before);
const cpuMsPerRequest = (used.user + used.system) / 1000 / (rounds * Number(inFlight));
process.stdout.write(JSON.stringify({ cpuMsPerRequest }));
process.exit(0);
`,
  );
  return { yaml, http };
}
