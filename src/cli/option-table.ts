// Commands as data: a command declares its options in a table, and this turns the table into commander wiring;
// the checks shared by the commands' options live here too. Spec: docs/cli.md (generated from --help).
import { type Command, Option } from "commander";
import { UsageError } from "../errors.js";

export interface OptionRow {
  flags: string;
  description: string;
  parse?: (value: string, previous: string[] | undefined) => unknown;
  default?: string | number;
  /** commander refuses the command without it (exit 3). */
  mandatory?: boolean;
}

export interface CommandTable {
  name: string;
  /** Positional arguments: `<name>` and its help. */
  arguments?: ReadonlyArray<readonly [name: string, description: string]>;
  description: string;
  options: ReadonlyArray<OptionRow | Option>;
}

/** The command `table` declares, with its options in the table's order (the order --help shows). */
export function commandFromTable(program: Command, table: CommandTable): Command {
  const cmd = program.command(table.name);
  for (const [name, description] of table.arguments ?? []) cmd.argument(name, description);
  return addOptionRows(cmd.description(table.description), table.options);
}

export function addOptionRows(cmd: Command, rows: CommandTable["options"]): Command {
  for (const row of rows) {
    if (row instanceof Option) {
      cmd.addOption(row);
      continue;
    }
    const option = new Option(row.flags, row.description);
    if (row.parse) option.argParser(row.parse as (value: string, previous: unknown) => unknown);
    if (row.default !== undefined) option.default(row.default);
    if (row.mandatory) option.makeOptionMandatory();
    cmd.addOption(option);
  }
  return cmd;
}

/** Each rule whose condition holds is a usage error (exit 3); the first one, in the table's order, is reported. */
export function refuseUsage(rules: ReadonlyArray<readonly [broken: boolean | undefined, message: string]>): void {
  for (const [broken, message] of rules) if (broken) throw new UsageError(message);
}

/** A whole number written in digits, from `min` to `max`, else undefined. */
export function wholeNumber(value: string | undefined, min: number, max: number): number | undefined {
  const n = Number(value);
  if (!/^\d+$/.test(String(value ?? "").trim()) || !Number.isSafeInteger(n) || n < min || n > max) return undefined;
  return n;
}

/** A time in milliseconds, or with a unit (500ms, 30s, 2m), else NaN. */
export function milliseconds(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/i.exec(value);
  const unit = m?.[2]?.toLowerCase() ?? "ms";
  return m ? Math.round(Number(m[1]) * (unit === "m" ? 60_000 : unit === "s" ? 1000 : 1)) : NaN;
}

/** Repeatable flag that also takes comma lists: `--host a --host b,c` → [a, b, c]. */
export function collectList(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
  ];
}

/** A repeatable flag taken whole: a URL may hold a comma. */
export function collectEach(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
