// What a GitHub Actions runner gives a JavaScript action, without @actions/core: inputs as INPUT_<NAME>
// variables, the event (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH), the files for outputs and the job
// summary (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY), and workflow commands on stdout (::error::, ::notice::,
// ::group::). https://docs.github.com/actions/reference/workflows-and-actions/workflow-commands
import { randomBytes } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";

export type Env = Record<string, string | undefined>;

export interface Runner {
  env: Env;
  /** An input by its name in action.yml (`github-token`), trimmed; "" when not given. */
  input(name: string): string;
  /** The event's name (pull_request, push, schedule, workflow_dispatch, …). */
  eventName: string;
  /** The event's payload (GITHUB_EVENT_PATH), {} when there is none. */
  event: Record<string, any>;
  setOutput(name: string, value: string): void;
  summary(markdown: string): void;
  log(line: string): void;
  error(message: string): void;
  warning(message: string): void;
  notice(message: string): void;
  group<T>(title: string, body: () => Promise<T>): Promise<T>;
}

/** A workflow command's data: %, CR and LF are escaped so that a message stays one command. */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** `name<<DELIMITER` … `DELIMITER`: a value of any text, with a delimiter it does not contain. */
export function outputRecord(name: string, value: string): string {
  let delimiter: string;
  do delimiter = `ghadelimiter_${randomBytes(8).toString("hex")}`;
  while (value.includes(delimiter));
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}

export function runnerFrom(env: Env, write: (text: string) => void = (t) => process.stdout.write(t)): Runner {
  const eventPath = env.GITHUB_EVENT_PATH;
  let event: Record<string, any> = {};
  if (eventPath) {
    try {
      event = JSON.parse(readFileSync(eventPath, "utf8")) as Record<string, any>;
    } catch (err) {
      throw new Error(`the event file GITHUB_EVENT_PATH=${eventPath} could not be read: ${(err as Error).message}`);
    }
  }
  const appendTo = (variable: string, text: string) => {
    const file = env[variable];
    if (file) appendFileSync(file, text);
    else write(`(${variable} is not set: this would go there)\n${text}`);
  };
  return {
    env,
    input: (name) => (env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim(),
    eventName: env.GITHUB_EVENT_NAME ?? "",
    event,
    setOutput: (name, value) => appendTo("GITHUB_OUTPUT", outputRecord(name, value)),
    summary: (markdown) => appendTo("GITHUB_STEP_SUMMARY", markdown.endsWith("\n") ? markdown : `${markdown}\n`),
    log: (line) => write(line.endsWith("\n") ? line : `${line}\n`),
    error: (message) => write(`::error::${escapeData(message)}\n`),
    warning: (message) => write(`::warning::${escapeData(message)}\n`),
    notice: (message) => write(`::notice::${escapeData(message)}\n`),
    group: async (title, body) => {
      write(`::group::${escapeData(title)}\n`);
      try {
        return await body();
      } finally {
        write("::endgroup::\n");
      }
    },
  };
}
