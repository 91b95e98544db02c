// What a GitHub Actions runner gives a JavaScript action, without @actions/core: inputs as INPUT_<NAME>
// variables, the event (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH), the files for outputs and the job
// summary (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY), and workflow commands on stdout (::error::, ::notice::,
// ::group::). https://docs.github.com/actions/reference/workflows-and-actions/workflow-commands
//
// The log obeys no data. The runner acts on `::command::` at the start of a line (after spaces) and on
// `##[command]` anywhere in one, so:
//  - text the Action did not write itself (what the zoneform CLI prints: live descriptions, values of
//    the file) goes out only through `fenced`, between `::stop-commands::<token>` and `::<token>::`, a
//    fresh random token per block that does not occur in the block (checked): nothing inside can act,
//    nor end the block early;
//  - a message of the Action's own commands (::error:: and the rest) has %, CR and LF escaped, so it
//    stays one command, and its other characters made printable (safe-text.ts);
//  - outputs go to the GITHUB_OUTPUT file, each value between random delimiters it does not contain.
import { randomBytes } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";
import { printable } from "../safe-text.js";

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
  /** A line of the Action's own (no data that is not its own: use `fenced` for that). */
  log(line: string): void;
  /** Text from elsewhere (the CLI's output), shown in the log where no workflow command in it can act. */
  fenced(text: string): void;
  error(message: string): void;
  warning(message: string): void;
  notice(message: string): void;
  group<T>(title: string, body: () => Promise<T>): Promise<T>;
}

/** A workflow command's data: printable, with %, CR and LF escaped so that a message stays one command. */
export function escapeData(text: string): string {
  return printable(text, { keepNewlines: true }).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** `name<<DELIMITER` … `DELIMITER`: a value of any text, with a delimiter it does not contain. */
export function outputRecord(name: string, value: string): string {
  let delimiter: string;
  do delimiter = `ghadelimiter_${randomBytes(16).toString("hex")}`;
  while (value.includes(delimiter));
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}

/**
 * `text` between `::stop-commands::TOKEN` and `::TOKEN::`: the runner ignores every workflow command
 * in between. The token is new for each block and absent from the text (the runner compares command
 * names without case), so nothing in the text can end the block.
 */
export function fence(text: string): string {
  const lower = text.toLowerCase();
  let token: string;
  do token = `zoneform-${randomBytes(16).toString("hex")}`;
  while (lower.includes(token));
  const body = text === "" || text.endsWith("\n") ? text : `${text}\n`;
  return `::stop-commands::${token}\n${body}::${token}::\n`;
}

export function runnerFrom(env: Env, write: (text: string) => void = (t) => process.stdout.write(t)): Runner {
  const eventPath = env.GITHUB_EVENT_PATH;
  let event: Record<string, any> = {};
  if (eventPath) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(eventPath, "utf8"));
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
        event = parsed as Record<string, any>;
      else throw new Error("not a JSON object");
    } catch (err) {
      throw new Error(`the event file GITHUB_EVENT_PATH=${eventPath} could not be read: ${(err as Error).message}`);
    }
  }
  const appendTo = (variable: string, text: string) => {
    const file = env[variable];
    if (file) appendFileSync(file, text);
    else write(fence(`(${variable} is not set: this would go there)\n${text}`));
  };
  return {
    env,
    input: (name) => (env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim(),
    eventName: env.GITHUB_EVENT_NAME ?? "",
    event,
    setOutput: (name, value) => appendTo("GITHUB_OUTPUT", outputRecord(name, value)),
    summary: (markdown) => appendTo("GITHUB_STEP_SUMMARY", markdown.endsWith("\n") ? markdown : `${markdown}\n`),
    log: (line) => {
      const text = line.endsWith("\n") ? line : `${line}\n`;
      // The Action's own lines hold no command; one that looks like it anyway (a path an input named)
      // is shown fenced, as data.
      write(/^\s*::|##\[/m.test(text) ? fence(text) : text);
    },
    fenced: (text) => write(fence(text)),
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
