// The Action as a function of the runner's environment: the mode(s) to run, the zoneform CLI of this
// commit in-process, and GitHub's REST API with the job's token.
import { zoneformIn } from "./cli.js";
import { GitHub } from "./github.js";
import { ActionFailed, apply, audit, drift, modesFor, plan, type Context, type Mode } from "./modes.js";
import { runnerFrom, type Env } from "./runner.js";

const RUN: Record<Mode, (ctx: Context) => Promise<void>> = { plan, apply, drift, audit };

/** Runs the Action; returns the process exit code (0, or 1 after an ::error:: line). */
export async function runAction(env: Env, cwd: string, write?: (text: string) => void): Promise<number> {
  let runner;
  try {
    runner = runnerFrom(env, write);
  } catch (err) {
    (write ?? ((t: string) => process.stdout.write(t)))(`::error::${(err as Error).message}\n`);
    return 1;
  }
  // The CLI sees the job's environment without the Action's inputs (the GitHub token among them).
  const cliEnv: Env = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith("INPUT_")));
  const workspace = env.GITHUB_WORKSPACE || cwd;
  const token = runner.input("github-token");
  const failures: string[] = [];
  try {
    const ctx: Context = {
      runner,
      workspace,
      cliEnv,
      zoneform: zoneformIn(cliEnv, workspace, (t) => runner.log(t)),
      github: token
        ? new GitHub(env.GITHUB_API_URL || "https://api.github.com", token, env.GITHUB_REPOSITORY ?? "")
        : undefined,
    };
    const modes = modesFor(runner.input("mode"), runner.eventName);
    runner.setOutput("mode", modes.join(","));
    for (const mode of modes) {
      try {
        await runner.group(`zoneform ${mode}`, () => RUN[mode](ctx));
      } catch (err) {
        if (!(err instanceof ActionFailed) && !(err instanceof Error && err.name === "GitHubError")) throw err;
        failures.push(err.message);
      }
    }
  } catch (err) {
    failures.push(err instanceof Error ? err.message : String(err));
  }
  for (const f of failures) runner.error(f);
  return failures.length === 0 ? 0 : 1;
}
