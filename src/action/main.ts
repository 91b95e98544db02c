// The Action as a function of the runner's environment.
import { cliEnvironment, configReferences, refusedReferences } from "./cli-env.js";
import { zoneformIn } from "./cli.js";
import { ActionFailed, configPath, type Context } from "./context.js";
import { GitHub, type Identity } from "./github.js";
import { modesFor, RUN } from "./modes.js";
import { fence, runnerFrom, type Env, type Runner } from "./runner.js";

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
  const workspace = env.GITHUB_WORKSPACE || cwd;
  const token = runner.input("github-token");
  const failures: string[] = [];
  try {
    // The CLI gets an allow-list of the environment (cli-env.ts), the Action's own code all of it.
    const refs = await configReferences(configPath({ runner, workspace }), workspace);
    const refused = refusedReferences(refs, env, token);
    const names = refs.map((r) => r.name);
    const cliEnv = cliEnvironment(env, names, token);
    const gh = token
      ? new GitHub(env.GITHUB_API_URL || "https://api.github.com", token, env.GITHUB_REPOSITORY ?? "")
      : undefined;
    let identity: Promise<Identity> | undefined;
    const ctx: Context = {
      runner,
      workspace,
      cliEnv,
      refused,
      zoneform: zoneformIn(cliEnv, workspace, runner, refused),
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
