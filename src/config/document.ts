// Checks one file's text: YAML with positions → `defaults:` merged into the zones → `${env:…}` interpolation →
// schema → semantic rules.
import type { ConfigProblem } from "../errors.js";
import type { Env } from "../model/index.js";
import { applyDefaults, type Expanded } from "./defaults.js";
import { EnvSecrets, declaredDocument, interpolateEnv, type TokenPlaces } from "../secrets/index.js";
import { ajvErrorsToFindings } from "./messages.js";
import { parseYaml } from "./parse.js";
import { toProblem, type Finding, type Locator } from "./problems.js";
import { asArray, asRecord, asString } from "../sections/index.js";
import { runRules } from "./rules/index.js";
import { tokenVariable } from "./rules/accounts.js";
import { validateDocument } from "./schema.js";

export interface CheckedFile {
  /** The file as shown in messages. */
  file: string;
  /** The interpolated document, for its checks only (undefined: the YAML was unreadable). */
  doc: unknown;
  declared?: unknown;
  locate: Locator;
  /** Errors and warnings, in source order. */
  problems: ConfigProblem[];
  /** The variables its strings reference (api_token variables left out). */
  names: string[];
  /** Each string written with a reference or an escape: pointer → its template. */
  templates: ReadonlyMap<string, string>;
  /** The variables its api_token fields name → the place, as messages say it. */
  tokens: ReadonlyMap<string, string>;
}

export function checkFileText(
  text: string,
  file: string,
  env: Env,
  missingEnv: "error" | "warning" = "error",
): CheckedFile {
  const parsed = parseYaml(text, file);
  const checked: CheckedFile = {
    file,
    doc: undefined,
    locate: parsed.locate,
    problems: [...parsed.problems],
    names: [],
    templates: new Map(),
    tokens: new Map(),
  };
  // undefined: the YAML could not be read (its errors are already reported).
  if (parsed.value === undefined) return checked;
  if (parsed.value === null) {
    checked.problems.push(emptyFile(file));
    return checked;
  }

  const expanded = applyDefaults(parsed.value);
  checked.locate = (pointer, at) => parsed.locate(expanded.origin(pointer), at);
  const tokens = tokenPlaces(expanded.value);
  const interpolated = interpolateEnv(expanded.value, env, missingEnv, tokens);
  checked.doc = interpolated.value;
  checked.declared = declaredDocument(interpolated);
  checked.names = interpolated.names;
  checked.templates = interpolated.templates;
  checked.tokens = tokens.names;
  const underMissing = (pointer: string) =>
    [...interpolated.missing].some((m) => pointer === m || pointer.startsWith(`${m}/`));

  // The file's values, hidden in a quoted value before it is cut (all files' are hidden again after).
  const secrets = new EnvSecrets(env, interpolated.names).redactor();
  const findings: Finding[] = [
    ...expanded.findings,
    ...interpolated.findings,
    ...ajvErrorsToFindings(validateDocument(interpolated.value), (t) => secrets.redactString(t)).filter(
      (f) => !underMissing(f.pointer),
    ),
    ...runRules(interpolated.value, { template: (pointer) => interpolated.templates.get(pointer) }),
  ];
  checked.problems.push(...locateFindings(findings, expanded, file, parsed.locate));
  checked.problems.sort(byPosition);
  return checked;
}

function tokenPlaces(doc: unknown): TokenPlaces {
  const pointers = new Set<string>();
  const names = new Map<string, string>();
  asArray(asRecord(doc)?.accounts).forEach((entry, i) => {
    const written = asString(asRecord(entry)?.api_token);
    if (written === undefined) return;
    pointers.add(`/accounts/${i}/api_token`);
    const name = tokenVariable(written);
    if (name !== undefined && !names.has(name)) names.set(name, `accounts[${i}].api_token`);
  });
  return { pointers, names };
}

const ZONES_NAMED = 5;

/** The findings as problems where their values were written. */
function locateFindings(findings: Finding[], expanded: Expanded, file: string, locate: Locator): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const key = (p: ConfigProblem) => `${p.line}:${p.column}:${p.severity}:${p.message}`;
  const copied = new Map<string, { problem: ConfigProblem; zones: string[] }>();
  for (const f of findings) {
    const from = expanded.origin(f.pointer);
    const problem = toProblem({ ...f, pointer: from }, file, locate);
    if (from === f.pointer) {
      out.push(problem);
      continue;
    }
    const group = copied.get(key(problem)) ?? { problem, zones: [] };
    const zone = zoneLabel(expanded.value, f.pointer);
    if (!group.zones.includes(zone)) group.zones.push(zone);
    copied.set(key(problem), group);
  }
  const own = new Set(out.map(key));
  for (const [k, { problem, zones }] of copied) {
    if (own.has(k)) continue;
    const named = zones.slice(0, ZONES_NAMED).join(", ");
    const more = zones.length > ZONES_NAMED ? ` and ${zones.length - ZONES_NAMED} more` : "";
    out.push({
      ...problem,
      message: `${problem.message} (in zone${zones.length === 1 ? "" : "s"} ${named}${more}, from defaults)`,
    });
  }
  return out;
}

function zoneLabel(doc: unknown, pointer: string): string {
  const i = Number(/^\/zones\/(\d+)/.exec(pointer)?.[1]);
  const zone = asRecord(asArray(asRecord(doc)?.zones)[i]);
  return asString(zone?.name) ?? asString(zone?.zone_id) ?? `zones[${i}]`;
}

function emptyFile(file: string): ConfigProblem {
  return {
    file,
    line: 1,
    column: 1,
    pointer: "",
    message: "the file is empty: it needs 'version: 1' and 'zones'",
    severity: "error",
  };
}

function byPosition(a: ConfigProblem, b: ConfigProblem): number {
  return a.line - b.line || a.column - b.column;
}
