// The Action as a function of the runner's environment: the mode(s) to run, the zoneform CLI of this
// commit in-process, and GitHub's REST API with the job's token.
import { zoneformIn } from "./cli.js";
import { ActionFailed, type Context } from "./context.js";
import { GitHub, type Identity } from "./github.js";
import { modesFor, RUN } from "./modes.js";
import { fence, runnerFrom, type Env, type Runner } from "./runner.js";

/** Runs the Action; returns the process exit code (0, or 1 after an ::error:: line). */
export async function runAction(env: Env, cwd: string, write?: (text: string) => void): Promise<number> {
  let runner: Runner;
  try {
    runner = runnerFrom(env, write);
  } catch (err) {
    const out = write ?? ((t: string) => process.stdout.write(t));
    out(fence(`zoneform: ${(err as Error).message}\n`));
    out("::error::the runner's files could not be read (above)\n");
    return 1;
  }
  // The CLI sees the job's environment without the Action's inputs (the GitHub token among them).
  const cliEnv: Env = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith("INPUT_")));
  const workspace = env.GITHUB_WORKSPACE || cwd;
  const token = runner.input("github-token");
  const failures: string[] = [];
  try {
    const gh = token
      ? new GitHub(env.GITHUB_API_URL || "https://api.github.com", token, env.GITHUB_REPOSITORY ?? "")
      : undefined;
    let identity: Promise<Identity> | undefined;
    const ctx: Context = {
      runner,
      workspace,
      cliEnv,
      zoneform: zoneformIn(cliEnv, workspace, runner),
      github: gh,
      identity: () => {
        if (!gh)
          throw new ActionFailed("the input github-token is empty: no identity to find the Action's comments by");
        identity ??= gh.identity();
        return identity;
      },
    };
    const modes = modesFor(runner.input("mode"), runner.eventName);
    runner.setOutput("mode", modes.join(","));
    for (const mode of modes) {
      try {
        await runner.group(`zoneform ${mode}`, () => RUN[mode](ctx));
      } catch (err) {
        failures.push(err instanceof Error ? err.message : String(err));
      }
    }
  } catch (err) {
    failures.push(err instanceof Error ? err.message : String(err));
  }
  for (const f of failures) runner.error(f);
  return failures.length === 0 ? 0 : 1;
}
