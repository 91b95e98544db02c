// The environment the Action gives the zoneform CLI (src/action/cli-env.ts): an allow-list of the
// runner's (what the files reference, CLOUDFLARE_*, ZONEFORM_*, what Node needs), never a runner
// variable or the github-token even when referenced; the references found in the configuration's text
// by the file's template syntax, and the one line that names those it never passes.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnvironment, configReferences, neverPassed, refusedReferences } from "../../src/action/cli-env.js";
import { tempDir } from "../helpers/cli.js";

const TOKEN = "ghs_actiontoken0123456789";

/** A runner's environment as a job on GitHub holds it, with the workflow's own variables. */
const RUNNER: Record<string, string> = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/runner",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  TZ: "UTC",
  TMPDIR: "/tmp",
  https_proxy: "http://proxy.internal:3128",
  NO_PROXY: "localhost",
  NODE_EXTRA_CA_CERTS: "/etc/ssl/corp.pem",
  NO_COLOR: "1",
  COLUMNS: "100",
  FORCE_COLOR: "1",
  CLOUDFLARE_API_TOKEN: "cf-token",
  CLOUDFLARE_API_BASE_URL: "https://api.cloudflare.com/client/v4",
  ZONEFORM_DEADLINE: "10m",
  ACTIONS_RUNTIME_TOKEN: "runtime-token-secret",
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: "oidc-secret",
  GITHUB_TOKEN: "ghs_jobtoken-secret",
  GITHUB_SHA: "a".repeat(40),
  RUNNER_TEMP: "/home/runner/work/_temp",
  "INPUT_GITHUB-TOKEN": TOKEN,
  INPUT_CONFIG: "zones/",
  GH_PAT: TOKEN,
  LOGPUSH_KEY: "logpush-key-value",
  SOME_OTHER_SECRET: "unreferenced-secret",
};

describe("the CLI's environment", () => {
  it("is what the files reference, zoneform's own variables and what Node needs; nothing else", () => {
    expect(cliEnvironment(RUNNER, ["LOGPUSH_KEY"], TOKEN)).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/runner",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      TZ: "UTC",
      TMPDIR: "/tmp",
      https_proxy: "http://proxy.internal:3128",
      NO_PROXY: "localhost",
      NODE_EXTRA_CA_CERTS: "/etc/ssl/corp.pem",
      NO_COLOR: "1",
      COLUMNS: "100",
      CLOUDFLARE_API_TOKEN: "cf-token",
      CLOUDFLARE_API_BASE_URL: "https://api.cloudflare.com/client/v4",
      ZONEFORM_DEADLINE: "10m",
      LOGPUSH_KEY: "logpush-key-value",
    });
  });

  it("never holds a runner variable or the github-token, even when the files reference them", () => {
    const referenced = Object.keys(RUNNER);
    const env = cliEnvironment(RUNNER, referenced, TOKEN);
    for (const name of Object.keys(env)) expect(name).not.toMatch(/^(GITHUB_|ACTIONS_|RUNNER_|INPUT_)/i);
    expect(Object.values(env)).not.toContain(TOKEN);
    expect(env).not.toHaveProperty("GH_PAT");
    expect(env.SOME_OTHER_SECRET).toBe("unreferenced-secret"); // referenced: passed
    // In any case: a Windows runner's names are not case-sensitive.
    expect(cliEnvironment({ github_token: "x", Path: "C:\\bin" }, ["github_token"], "")).toEqual({ Path: "C:\\bin" });
  });

  it("says why a variable is never passed", () => {
    expect(neverPassed("ACTIONS_RUNTIME_TOKEN", "v", TOKEN)).toBe("a runner variable");
    expect(neverPassed("INPUT_GITHUB-TOKEN", TOKEN, TOKEN)).toBe("a runner variable");
    expect(neverPassed("GH_PAT", TOKEN, TOKEN)).toBe("it holds the Action's github-token");
    expect(neverPassed("LOGPUSH_KEY", "v", TOKEN)).toBeUndefined();
    expect(neverPassed("EMPTY", "", "")).toBeUndefined(); // no token: no value to compare
  });
});

describe("the configuration's references", () => {
  it("are every ${env:…} of the file's text, escapes left out, names kept as written", async () => {
    const ws = await tempDir("zoneform-action-env-");
    await writeFile(
      join(ws, "zoneform.yaml"),
      [
        "zones:",
        "  - name: example.com # ${env:IN_A_COMMENT}",
        '    description: "$${env:ESCAPED} ${env:LOGPUSH_KEY}-${env:INPUT_GITHUB-TOKEN}"',
        "    value: $$${env:DOLLAR_THEN_ESCAPE} ${other:X} ${env:}",
        "",
      ].join("\n"),
    );
    expect(await configReferences(join(ws, "zoneform.yaml"), ws)).toEqual([
      { name: "IN_A_COMMENT", file: "zoneform.yaml" },
      { name: "LOGPUSH_KEY", file: "zoneform.yaml" },
      { name: "INPUT_GITHUB-TOKEN", file: "zoneform.yaml" },
      { name: "", file: "zoneform.yaml" },
    ]);
  });

  it("are read from the *.yaml and *.yml files of a folder, as zoneform reads it; none from what cannot be read", async () => {
    const ws = await tempDir("zoneform-action-env-");
    await mkdir(join(ws, "zones/nested"), { recursive: true });
    await writeFile(join(ws, "zones/b.yml"), "x: ${env:B}\n");
    await writeFile(join(ws, "zones/a.yaml"), "x: ${env:A}\n");
    await writeFile(join(ws, "zones/notes.txt"), "x: ${env:NOT_CONFIG}\n");
    await writeFile(join(ws, "zones/nested/c.yaml"), "x: ${env:NOT_READ}\n");
    await writeFile(join(ws, "target.txt"), "x: ${env:THROUGH_A_LINK}\n");
    await symlink(join(ws, "target.txt"), join(ws, "zones/link.yaml"));
    expect(await configReferences(join(ws, "zones"), ws)).toEqual([
      { name: "A", file: "zones/a.yaml" },
      { name: "B", file: "zones/b.yml" },
      { name: "THROUGH_A_LINK", file: "zones/link.yaml" },
    ]);
    expect(await configReferences(join(ws, "missing.yaml"), ws)).toEqual([]);
    const outside = await tempDir("zoneform-action-env-");
    await writeFile(join(outside, "z.yaml"), "x: ${env:C}\n");
    expect(await configReferences(join(outside, "z.yaml"), ws)).toEqual([{ name: "C", file: join(outside, "z.yaml") }]);
  });

  it("that name a variable never passed make one line naming each and its file", () => {
    const refs = [
      { name: "LOGPUSH_KEY", file: "zones/a.yaml" },
      { name: "ACTIONS_RUNTIME_TOKEN", file: "zones/a.yaml" },
      { name: "ACTIONS_RUNTIME_TOKEN", file: "zones/a.yaml" },
      { name: "GH_PAT", file: "zones/b.yaml" },
    ];
    expect(refusedReferences(refs.slice(0, 1), RUNNER, TOKEN)).toBeUndefined();
    expect(refusedReferences(refs, RUNNER, TOKEN)).toBe(
      "${env:ACTIONS_RUNTIME_TOKEN} in zones/a.yaml (a runner variable), ${env:GH_PAT} in zones/b.yaml (it holds " +
        "the Action's github-token): runner variables (GITHUB_*, ACTIONS_*, RUNNER_*, INPUT_*) and the " +
        "github-token are never passed to zoneform; give the value a variable of its own in the step's env:",
    );
    const line = refusedReferences([{ name: "INPUT_X\n::set-output name=x::", file: "zones/c.yaml" }], RUNNER, TOKEN);
    expect(line).toMatch(/^\$\{env:INPUT_X\\n::set-output name=x::\} in zones\/c\.yaml \(a runner variable\): /);
    expect(line).not.toContain("\n");
  });
});
