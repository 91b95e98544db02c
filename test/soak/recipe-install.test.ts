// The install lines of the CI recipes that run the CLI (examples/ci/gitlab-ci.yml, examples/ci/crontab)
// work as written: they are taken from the recipe (test/helpers/recipes.ts), the repository's URL in
// them is replaced by a git clone of this repository's HEAD (file://), and they run in bash with a
// HOME, a temporary folder and an npm global prefix of their own (the prefix stands for the /usr/local
// of the image or host, where `npm install --global` puts zoneform; on PATH as there), on the Node
// running the tests (one package.json's engines accepts), with the npm configuration and cache of the
// machine (--prefer-offline: the registry is asked only for what the cache lacks). The GitLab recipe's
// pin, ZONEFORM_COMMIT (the placeholder <commit> as written), is set to that HEAD. Each GitLab job is a
// fresh container: the job that packs zoneform and the job that installs the packed file run in
// shells of their own, with their own HOME and prefix, sharing only the project folder (the artifact).
// Then `zoneform --version` of the installed program prints package.json's version.
//
// Slow (a clone, `npm ci` and the build that `npm pack` runs, per recipe): it runs with the soak tests,
// `npm run test:soak`, not `npm test`.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/cli.js";
import { INSTALLING, gitlabJob, recipeInstall } from "../helpers/recipes.js";

const ROOT = resolve(import.meta.dirname, "../..");
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  repository: { url: string };
};
/** The URL the recipes clone: package.json's repository, without npm's `git+`. */
const REPOSITORY = PKG.repository.url.replace(/^git\+/, "");
/** The report folder the cron recipe makes for the user of its crontab: not part of installing zoneform. */
const REPORT_FOLDER = /^install -d .* \/var\/lib\/zoneform$/;

let work = "";
let origin = "";
/** The commit the clone's HEAD is: what the GitLab recipe's ZONEFORM_COMMIT pins here. */
let head = "";
/** The machine's npm configuration files and cache, as npm reads them for this process. */
let npmConfig: { userconfig: string; globalconfig: string; cache: string };

beforeAll(async () => {
  work = await tempDir("zoneform-recipes-");
  origin = join(work, "zoneform.git");
  execFileSync("git", ["clone", "--quiet", "--bare", ROOT, origin], { stdio: ["ignore", "ignore", "pipe"] });
  head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: origin, encoding: "utf8" }).trim();
  const config = JSON.parse(
    execFileSync("npm", ["config", "list", "--json"], { encoding: "utf8", env: nodeFirst(process.env) }),
  ) as Record<string, string>;
  npmConfig = { userconfig: config.userconfig!, globalconfig: config.globalconfig!, cache: config.cache! };
}, 60_000);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000); // two clones with their node_modules

/** `env` with the Node running the tests first on PATH. */
function nodeFirst(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, PATH: `${dirname(process.execPath)}:${env.PATH ?? ""}` };
}

/** A fresh machine for one shell: its HOME, TMPDIR and global prefix, and what the recipe's CI sets. */
function machine(name: string, extra: Record<string, string>): { env: NodeJS.ProcessEnv; prefix: string } {
  const home = join(work, name, "home");
  const tmp = join(work, name, "tmp");
  const prefix = join(work, name, "prefix");
  for (const d of [home, tmp, join(prefix, "bin")]) mkdirSync(d, { recursive: true });
  // The caller's variables less npm's own (npm run sets npm_config_prefix and more) and git's.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(npm_|NPM_|GIT_|INIT_CWD$|NODE_OPTIONS$)/i.test(k)),
  );
  const env = nodeFirst({
    ...inherited,
    PATH: `${join(prefix, "bin")}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    TMPDIR: tmp,
    npm_config_prefix: prefix,
    npm_config_userconfig: npmConfig.userconfig,
    npm_config_globalconfig: npmConfig.globalconfig,
    npm_config_cache: npmConfig.cache,
    npm_config_prefer_offline: "true",
    npm_config_update_notifier: "false",
    ...extra,
  });
  return { env, prefix };
}

/** Runs `lines` as one bash script that stops at the first failing line, in `cwd`. */
function run(lines: string[], cwd: string, env: NodeJS.ProcessEnv): void {
  const r = spawnSync("bash", ["-e", "-o", "pipefail", "-c", lines.join("\n")], {
    cwd,
    env,
    encoding: "utf8",
    timeout: 540_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0)
    throw new Error(
      `the install lines failed (exit ${r.status ?? r.signal}):\n${lines.join("\n")}\n--- stdout\n` +
        `${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`,
    );
}

/** The lines with the repository's URL replaced by the local clone; fails when a recipe names no URL. */
function fromLocalClone(shells: string[][]): string[][] {
  expect(
    shells.flat().some((l) => l.includes(REPOSITORY)),
    `the install lines clone ${REPOSITORY}`,
  ).toBe(true);
  return shells.map((lines) => lines.map((l) => l.replaceAll(REPOSITORY, pathToFileURL(origin).href)));
}

/** `zoneform --version` as the installed program on the machine's PATH answers it. */
function installedVersion(env: NodeJS.ProcessEnv, cwd: string): { path: string; version: string } {
  const out = execFileSync("bash", ["-c", "command -v zoneform && zoneform --version"], { cwd, env, encoding: "utf8" });
  const [path, version] = out.trim().split("\n");
  return { path: path!, version: version! };
}

describe.each(INSTALLING)("the install lines of examples/ci/%s", (file) => {
  it("install zoneform from a clone of the repository, and the installed zoneform runs", () => {
    const steps = recipeInstall(file);
    expect(steps.shells.flat().length).toBeGreaterThan(0);
    const shells = fromLocalClone(steps.shells);
    if (file === "crontab") {
      // One person at a root shell; the report folder needs the crontab's user and /var/lib.
      expect(shells[0]!.filter((l) => REPORT_FOLDER.test(l))).toHaveLength(1);
      const { env, prefix } = machine("cron", {});
      const cwd = join(work, "cron", "home");
      run(
        shells[0]!.filter((l) => !REPORT_FOLDER.test(l)),
        cwd,
        env,
      );
      expect(installedVersion(env, cwd)).toEqual({ path: join(prefix, "bin", "zoneform"), version: PKG.version });
      return;
    }
    // GitLab: the job that packs zoneform, then a job that installs its artifact, each in a fresh
    // container of the image, in the project folder.
    expect(shells).toHaveLength(2);
    const project = join(work, "gitlab-project");
    mkdirSync(project, { recursive: true });
    const ci = { CI: "true", GITLAB_CI: "true", CI_PROJECT_DIR: project };
    expect(gitlabJob("build-zoneform").variables).toEqual({ ZONEFORM_COMMIT: "<commit>" });
    const build = machine("gitlab-build", { ...ci, ZONEFORM_COMMIT: head });
    run(shells[0]!, project, build.env);
    const job = machine("gitlab-job", ci);
    run(shells[1]!, project, job.env);
    expect(installedVersion(job.env, project)).toEqual({
      path: join(job.prefix, "bin", "zoneform"),
      version: PKG.version,
    });
  }, 600_000);
});
