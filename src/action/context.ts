// What every mode of the Action works with.
import { resolve } from "node:path";
import { DEFAULT_CONFIG_PATH } from "../model/index.js";
import { mdCodeBlock } from "../safe-markdown.js";
import type { Zoneform } from "./cli.js";
import type { GitHub, Identity } from "./github.js";
import type { Runner } from "./runner.js";

export class ActionFailed extends Error {
  override name = "ActionFailed";
}

export interface Context {
  runner: Runner;
  zoneform: Zoneform;
  /** The workspace the paths are relative to (the job's checkout). */
  workspace: string;
  /** The environment the CLI sees: an allow-list of the runner's (cli-env.ts). */
  cliEnv: Runner["env"];
  refused: string | undefined;
  github?: GitHub;
  identity(): Promise<Identity>;
}

export function github(ctx: Context): GitHub {
  if (!ctx.github)
    throw new ActionFailed(
      "the input github-token is empty: the Action needs it to comment and to find the reviewed plan",
    );
  return ctx.github;
}

/** The configuration, always named: the input `config`, else zoneform.yaml, in the workspace. */
export function configPath(ctx: Pick<Context, "runner" | "workspace">): string {
  return resolve(ctx.workspace, ctx.runner.input("config") || DEFAULT_CONFIG_PATH);
}

export function zoneArgs(ctx: Context): string[] {
  const zone = ctx.runner.input("zone");
  return zone ? ["--zone", zone] : [];
}

export function configArgs(ctx: Context): string[] {
  return ["-c", configPath(ctx), ...zoneArgs(ctx)];
}

/** The address of this workflow run, when the runner says which it is. */
function runUrl(env: Runner["env"], runId = env.GITHUB_RUN_ID): string | undefined {
  const { GITHUB_SERVER_URL: server = "https://github.com", GITHUB_REPOSITORY: repo } = env;
  return repo && runId && /^\d+$/.test(runId) ? `${server}/${repo}/actions/runs/${runId}` : undefined;
}

/** `run N`, linked to the run when its address is known. */
export function runLink(env: Runner["env"], runId: string): string {
  const url = runUrl(env, runId);
  return url ? `[run ${runId}](${url})` : `run ${runId}`;
}

export function codeBlock(text: string): string {
  return `${mdCodeBlock(text.trimEnd().split("\n"))}\n`;
}

export function lastLines(text: string, n = 40): string {
  const lines = text.trimEnd().split("\n");
  return (lines.length > n ? ["…", ...lines.slice(-n)] : lines).join("\n");
}
