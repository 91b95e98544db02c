// What a GitHub Actions runner gives a JavaScript action, without @actions/core.
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
  log(line: string): void;
  fenced(text: string): void;
  error(message: string): void;
  warning(message: string): void;
  notice(message: string): void;
  group<T>(title: string, body: () => Promise<T>): Promise<T>;
}

export function escapeData(text: string): string {
  return printable(text, { keepNewlines: true }).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

export function outputRecord(name: string, value: string): string {
  let delimiter: string;
  do delimiter = `ghadelimiter_${randomBytes(16).toString("hex")}`;
  while (value.includes(delimiter));
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}

/** `text` between `::stop-commands::TOKEN` and `::TOKEN::`: the runner ignores every workflow command in between. */
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
