// The package as it is published: the repository's build inputs are copied to a directory of their
// own and built there (`npm run build`, never the dist/ of the checkout, which may be stale), then
// `npm pack`, installed in a fresh project, where the library API plans, applies and checks drift
// against `zoneform/emulator` through `import … from "zoneform"`, and the executable runs.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO = resolve(import.meta.dirname, "../..");
/** What the package holds besides dist/ and its bundled dependencies. */
const INPUTS = [
  "package.json",
  "npm-shrinkwrap.json",
  "schemas",
  "examples",
  "docs",
  "README.md",
  "LICENSE",
  "CHANGELOG.md",
];
// The Node running the tests runs npm and the build.
const ENV = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` };
// Two threads for npm's file writes: its default four contend on 2 cores (half again the time, in the kernel).
const npm = (args: string[], cwd: string) =>
  execFileSync("npm", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...ENV, UV_THREADPOOL_SIZE: "2" },
  });

let ROOT = "";

/** The packages npm-shrinkwrap.json marks as bundled: every runtime dependency, direct or not. */
function runtimePackages(): string[] {
  const locked = JSON.parse(readFileSync(join(REPO, "npm-shrinkwrap.json"), "utf8")) as {
    packages: Record<string, { inBundle?: boolean }>;
  };
  return Object.entries(locked.packages)
    .filter(([, p]) => p.inBundle)
    .map(([path]) => path.slice("node_modules/".length));
}

/**
 * ROOT/node_modules: the packages the tarball bundles copied (npm pack leaves out the dependencies of a
 * bundled package reached through a symlink), every other entry a symlink to the checkout's.
 */
function linkNodeModules(): void {
  const bundled = new Set(runtimePackages());
  mkdirSync(join(ROOT, "node_modules"));
  for (const entry of readdirSync(join(REPO, "node_modules"))) {
    const from = join(REPO, "node_modules", entry);
    if (bundled.has(entry)) cpSync(from, join(ROOT, "node_modules", entry), { recursive: true });
    else symlinkSync(from, join(ROOT, "node_modules", entry));
  }
}

beforeAll(() => {
  ROOT = mkdtempSync(join(tmpdir(), "zoneform-build-"));
  for (const input of INPUTS)
    if (existsSync(join(REPO, input))) cpSync(join(REPO, input), join(ROOT, input), { recursive: true });
  linkNodeModules();
  // The suite's global setup has just built dist/ from these sources (npm run build, when stale).
  cpSync(join(REPO, "dist"), join(ROOT, "dist"), { recursive: true });
}, 180_000);
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

const SCRIPT = `
import { loadConfig, plan, apply, drift, createClient, renderPlan } from "zoneform";
import { startEmulator } from "zoneform/emulator";
import { writeFileSync } from "node:fs";

const emu = await startEmulator({ port: 0 });
try {
  writeFileSync("zoneform.yaml", "version: 1\\nzones:\\n  - zone_id: 5ababd603b22780302dd8d83498e5172\\n    page_shield:\\n      enabled: true\\n");
  const { desired } = await loadConfig("zoneform.yaml");
  const client = createClient({ baseUrl: emu.url, auth: { token: "emulator-token" } });
  const first = await plan(desired, { client });
  const text = renderPlan(first, desired);
  const report = await apply(first, { client });
  const after = await drift(desired, { client });
  await client.close();
  console.log(JSON.stringify({ summary: first.summary, text, done: report.done, drifted: after.drifted }));
} finally {
  await emu.close();
}
`;

/** The tarball `npm pack` writes, and the files it holds (packed once). */
let pack: { tarball: string; files: string[] } | undefined;
function packed(): { tarball: string; files: string[] } {
  if (pack) return pack;
  const out = mkdtempSync(join(tmpdir(), "zoneform-pack-"));
  const [made] = JSON.parse(npm(["pack", "--json", "--ignore-scripts", "--pack-destination", out], ROOT)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  pack = { tarball: join(out, made!.filename), files: made!.files.map((f) => f.path) };
  return pack;
}

/** A fresh project with the packed package installed (made once, for the tests that need it). */
let project: string | undefined;
function installed(): string {
  if (project) return project;
  const { tarball } = packed();
  project = mkdtempSync(join(tmpdir(), "zoneform-user-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user", private: true, type: "module" }));
  npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], project);
  return project;
}

/** A strict consumer of the published types: the library and the emulator, no Node.js API of its own. */
const CONSUMER = `
import { createClient, loadConfig, plan, apply, drift, planFromLive, type Plan, type DesiredState, type ApplyReport } from "zoneform";
import { startEmulator, type RequestLogEntry } from "zoneform/emulator";

export async function run(path: string): Promise<{ plan: Plan; report: ApplyReport; log: RequestLogEntry[] }> {
  const emu = await startEmulator({ port: 0 });
  const { desired }: { desired: DesiredState } = await loadConfig(path, { env: { TOKEN: "x" } });
  const client = createClient({ baseUrl: emu.url, auth: { token: "emulator-token" } });
  const p = await plan(desired, { client });
  const report = await apply(p, { client });
  await drift(desired, { client });
  planFromLive(desired, { zones: {}, read_at: "" } as never);
  await emu.close();
  return { plan: p, report, log: [] };
}
`;

describe("the npm package", () => {
  it(
    "holds the built code, its types, schemas, examples, README, LICENSE and CHANGELOG, and no source map, " +
      "source or test",
    () => {
      const { files } = packed();
      for (const wanted of [
        "LICENSE",
        "CHANGELOG.md",
        "README.md",
        "package.json",
        "npm-shrinkwrap.json",
        "dist/index.js",
        "dist/index.d.ts",
        "dist/cli/zoneform.js",
        "dist/cli/schema-validator.cjs",
        "dist/emulator/index.js",
        "schemas/zoneform.schema.json",
        "schemas/zoneform.schema.draft-07.json",
        "schemas/plan.schema.json",
        "docs/configuration.md",
        "docs/commands/README.md",
      ]) {
        expect(files, wanted).toContain(wanted);
      }
      // Of its own files: the bundled dependencies (node_modules/) come as their packages hold them.
      const own = files.filter((f) => !f.startsWith("node_modules/"));
      expect(own.filter((f) => f.endsWith(".map") || f === "dist/.build-stamp")).toEqual([]);
      const bundled = new Set(files.filter((f) => f.startsWith("node_modules/")).map((f) => f.split("/")[1]));
      expect([...bundled].sort()).toEqual(runtimePackages().sort());
      expect(files.filter((f) => /^dist\/cli\/bundle-\w+\.js$/.test(f)).length).toBeGreaterThan(1);
      // package.json's bin is in the package, and it is the bundle's executable.
      const { bin } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
      expect(bin).toEqual({ zoneform: "dist/cli/zoneform.js" });
      expect(own.filter((f) => f.startsWith("src/") || f.startsWith("test/"))).toEqual([]);
    },
  );

  it("installs from its tarball the dependency versions the tests ran on (npm-shrinkwrap.json)", () => {
    const project = installed();
    const locked = JSON.parse(readFileSync(join(REPO, "npm-shrinkwrap.json"), "utf8")) as {
      packages: Record<string, { version?: string; dev?: boolean }>;
    };
    const runtime = Object.entries(locked.packages).filter(([path, p]) => path.startsWith("node_modules/") && !p.dev);
    expect(runtime.length).toBeGreaterThan(4);
    for (const [path, p] of runtime) {
      const dir = join(project, "node_modules/zoneform", path);
      const at = existsSync(dir) ? dir : join(project, path);
      expect(JSON.parse(readFileSync(join(at, "package.json"), "utf8")).version, path).toBe(p.version);
    }
  });

  it("installs from its tarball and plans, applies and checks drift through the library API", () => {
    const project = installed();
    writeFileSync(join(project, "main.mjs"), SCRIPT);
    const result = JSON.parse(
      execFileSync(process.execPath, ["main.mjs"], { cwd: project, encoding: "utf8", env: ENV }),
    );
    expect(result.summary).toEqual({ create: 0, update: 1, replace: 0, delete: 0 });
    expect(result.text).toContain('~ page_shield_settings "settings"');
    expect(result.done).toEqual(['5ababd603b22780302dd8d83498e5172: ~ page_shield_settings "settings"']);
    expect(result.drifted).toBe(false);
    // The installed executable (on the Node running the tests, first on PATH for its `env node`).
    const bin = join(project, "node_modules/.bin/zoneform");
    expect(execFileSync(bin, ["--version"], { cwd: project, encoding: "utf8", env: ENV }).trim()).toBe(
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version,
    );
    writeFileSync(
      join(project, "zoneform.yaml"),
      "version: 1\nzones:\n  - zone_id: 5ababd603b22780302dd8d83498e5172\n    page_shield: { enabled: true }\n",
    );
    expect(execFileSync(bin, ["validate"], { cwd: project, encoding: "utf8", env: ENV })).toContain(
      "1 zone in zoneform.yaml is valid",
    );
  }, 120_000);

  // TypeScript 7 (the native compiler, whose \`types\` default is empty) and 5, skipLibCheck off, with
  // and without @types/node: the published declarations name no Node.js type.
  const compilers = {
    "TypeScript 7": join(REPO, "node_modules/typescript/bin/tsc"),
    "TypeScript 5": join(REPO, "node_modules/typescript5/bin/tsc"),
  };
  for (const [name, tsc] of Object.entries(compilers)) {
    for (const withNode of [false, true]) {
      it(`compiles a strict consumer with ${name}, skipLibCheck off, ${withNode ? "with" : "without"} ` +
        `@types/node`, () => {
        const dir = installed();
        writeFileSync(join(dir, "consumer.ts"), CONSUMER);
        const tsconfig = {
          compilerOptions: {
            strict: true,
            module: "NodeNext",
            moduleResolution: "NodeNext",
            target: "ES2022",
            noEmit: true,
            skipLibCheck: false,
            // TypeScript's own lib files are not what is tested: every other declaration is checked.
            skipDefaultLibCheck: true,
            types: withNode ? ["node"] : [],
            ...(withNode ? { typeRoots: [join(REPO, "node_modules/@types")] } : {}),
          },
          files: ["consumer.ts"],
        };
        const file = `tsconfig.${name.replace(/\W/g, "")}.${withNode}.json`;
        writeFileSync(join(dir, file), JSON.stringify(tsconfig));
        let out = "";
        try {
          out = execFileSync(process.execPath, [tsc, "-p", file], { cwd: dir, encoding: "utf8", env: ENV });
        } catch (err) {
          out = String((err as { stdout?: string }).stdout ?? err);
        }
        expect(out.trim()).toBe("");
      }, 120_000);
    }
  }
});
