// Checks one file's text: YAML with positions → `${env:…}` interpolation → schema → semantic rules.
// Every stage runs as far as it can so that all problems are reported at once.
import type { ConfigProblem } from "../errors.js";
import type { SecretRef, TemplatedValue } from "../model/desired.js";
import { declaredDocument, interpolateEnv, templatedValues } from "./interpolate.js";
import { ajvErrorsToFindings } from "./messages.js";
import { parseYaml } from "./parse.js";
import { toProblem, type Finding, type Locator } from "./problems.js";
import { runRules } from "./rules/index.js";
import { Redactor } from "../redact.js";
import { validateDocument } from "./schema.js";
import type { Env } from "../model/env.js";

export interface CheckedFile {
  /** The file as shown in messages. */
  file: string;
  /** The interpolated document (undefined when the YAML could not be read). */
  doc: unknown;
  /** The document as written, `${env:…}` references kept (what a saved plan carries). */
  declared?: unknown;
  locate: Locator;
  /** Errors and warnings, in source order. */
  problems: ConfigProblem[];
  secrets: SecretRef[];
  templated: TemplatedValue[];
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
    secrets: [],
    templated: [],
  };
  // undefined: the YAML could not be read (its errors are already reported).
  if (parsed.value === undefined) return checked;
  if (parsed.value === null) {
    checked.problems.push(emptyFile(file));
    return checked;
  }

  const interpolated = interpolateEnv(parsed.value, env, missingEnv);
  checked.doc = interpolated.value;
  checked.declared = declaredDocument(interpolated);
  checked.secrets = interpolated.secrets;
  checked.templated = templatedValues(interpolated);
  const underMissing = (pointer: string) =>
    [...interpolated.missing].some((m) => pointer === m || pointer.startsWith(`${m}/`));

  // The file's secrets, hidden in a quoted value before it is cut (all files' are hidden again after).
  const secrets = new Redactor(interpolated.secrets);
  const findings: Finding[] = [
    ...interpolated.findings,
    ...ajvErrorsToFindings(validateDocument(interpolated.value), (t) => secrets.redactString(t)).filter(
      (f) => !underMissing(f.pointer),
    ),
    ...runRules(interpolated.value, { template: (pointer) => interpolated.templates.get(pointer) }),
  ];
  checked.problems.push(...findings.map((f) => toProblem(f, file, parsed.locate)));
  checked.problems.sort(byPosition);
  return checked;
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

export function byPosition(a: ConfigProblem, b: ConfigProblem): number {
  return a.line - b.line || a.column - b.column;
}
