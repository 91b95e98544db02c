// The install steps of the recipes in examples/ci that run the CLI (the GitHub workflows use the
// Action, which installs nothing): the shell lines a person or a CI job runs to put zoneform on PATH,
// in the order they run. test/unit/ci-recipes.test.ts checks what they install; test/soak/
// recipe-install.test.ts runs them.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseDocument } from "yaml";

const RECIPES = resolve(import.meta.dirname, "../../examples/ci");

/** The recipes that install the CLI. */
export const INSTALLING = ["crontab", "gitlab-ci.yml"] as const;

export interface InstallSteps {
  /**
   * The shell lines, in order, one list per shell (a `cd` holds for the lines after it in the same
   * shell); each shell starts in the same folder (GitLab: $CI_PROJECT_DIR, where artifacts land).
   */
  shells: string[][];
  /** GitLab: the image the jobs run in. */
  image?: string;
}

/**
 * The install lines of a recipe.
 * - crontab: the indented command lines (`#   …`) of its opening comment, the ones a person runs once.
 * - gitlab-ci.yml: the job that packs zoneform (`npm pack`: its before_script, the default one unless
 *   it has its own, and its script), then, in a shell of its own, the `default:` before_script, which
 *   every other job runs in a fresh container with that job's artifact.
 */
export function recipeInstall(
  file: (typeof INSTALLING)[number],
  text = readFileSync(resolve(RECIPES, file), "utf8"),
): InstallSteps {
  if (file === "crontab") {
    const end = text.search(/^[^#\n]/m);
    const opening = end === -1 ? text : text.slice(0, end);
    return { shells: [[...opening.matchAll(/^# {3,}(\S.*)$/gm)].map((m) => m[1]!)] };
  }
  const config = parseDocument(text).toJS() as Record<string, unknown>;
  const lines = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === "string" ? [v] : []);
  const jobs = Object.entries(config).filter(
    ([, v]) => v !== null && typeof v === "object" && "script" in (v as object),
  ) as Array<[string, { script: unknown; before_script?: unknown }]>;
  const packing = jobs.filter(([, job]) => lines(job.script).some((l) => /\bnpm pack\b/.test(l)));
  if (packing.length !== 1) throw new Error(`${file}: ${packing.length} jobs run npm pack, not one`);
  const [, build] = packing[0]!;
  const defaults = (config.default ?? {}) as { before_script?: unknown };
  return {
    shells: [
      [...lines(build.before_script ?? defaults.before_script), ...lines(build.script)],
      lines(defaults.before_script),
    ],
    image: typeof config.image === "string" ? config.image : undefined,
  };
}

export interface GitLabJobShell {
  /** The job's `script:` lines, one shell (GitLab runs them in order in one shell). */
  script: string;
  /** The job's `variables:`, as written (`$NAME` references unexpanded). */
  variables: Record<string, string>;
}

/** A job of the GitLab recipe: its script and variables (its before_script, the install, left out). */
export function gitlabJob(
  name: string,
  text = readFileSync(resolve(RECIPES, "gitlab-ci.yml"), "utf8"),
): GitLabJobShell {
  const config = parseDocument(text).toJS() as Record<string, { script?: unknown; variables?: unknown }>;
  const job = config[name];
  if (!job || job.script === undefined) throw new Error(`gitlab-ci.yml: no job ${name} with a script`);
  const script = Array.isArray(job.script) ? job.script.map(String).join("\n") : String(job.script);
  const variables = Object.fromEntries(
    Object.entries((job.variables ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
  );
  return { script, variables };
}
