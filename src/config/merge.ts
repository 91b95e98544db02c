// Joins the checked files of a configuration into one desired state.
import type { ConfigProblem } from "../errors.js";
import type { SecretValues } from "../model/index.js";
import { referencedNames } from "../template.js";
import type { CheckedFile } from "./document.js";
import { DEFAULT_MAX_DELETES, normalizeAccount, normalizeZone, type FileDocument } from "./normalize.js";
import { tokenVariable } from "./rules/accounts.js";
import { isError, toProblem } from "./problems.js";
import { asArray, asRecord, asString, type DesiredState } from "../sections/index.js";

export interface MergeResult {
  problems: ConfigProblem[];
  /** Present only when no file has an error. */
  desired?: DesiredState;
}

export function mergeFiles(files: CheckedFile[], secrets: SecretValues): MergeResult {
  const all = [...files.flatMap((f) => f.problems), ...tokensElsewhere(files), ...repeatedAcrossFiles(files)];
  if (all.some(isError)) return { problems: all };
  const state = desiredState(files, secrets);
  if (state.zones.length === 0 && (state.accounts ?? []).length === 0) {
    const f = files[0];
    if (f)
      all.push({
        ...toProblem({ pointer: "/zones", message: "no zones: nothing will be managed" }, f.file, f.locate),
        severity: "warning",
      });
  }
  return { problems: all, desired: state };
}

const where = (f: CheckedFile, pointer: string) => {
  const pos = f.locate(pointer);
  return `${f.file}:${pos.line}:${pos.column}`;
};

/** A zone or account declared in two files, or a setting two files disagree on. */
function repeatedAcrossFiles(files: CheckedFile[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const zoneSeen = new Map<string, { file: CheckedFile; pointer: string }>();
  const accountSeen = new Map<string, { file: CheckedFile; pointer: string }>();
  const settingSeen = new Map<"account_id" | "safety", { file: CheckedFile; value: string }>();
  for (const f of files) {
    const doc = asRecord(f.doc);
    if (!doc) continue;
    asArray(doc.zones).forEach((zone, i) => {
      const id = asString(asRecord(zone)?.zone_id);
      if (id === undefined) return;
      const pointer = `/zones/${i}/zone_id`;
      const first = zoneSeen.get(id);
      if (first) {
        problems.push(
          toProblem(
            { pointer, message: `zone ${id} is declared twice (first at ${where(first.file, first.pointer)})` },
            f.file,
            f.locate,
          ),
        );
      } else zoneSeen.set(id, { file: f, pointer });
    });
    // Within a file the rules report a repeated account; across files, here.
    const inFile = new Set<string>();
    asArray(doc.accounts).forEach((account, i) => {
      const id = asString(asRecord(account)?.account_id);
      if (id === undefined || inFile.has(id)) return;
      inFile.add(id);
      const pointer = `/accounts/${i}/account_id`;
      const first = accountSeen.get(id);
      if (first) {
        problems.push(
          toProblem(
            {
              pointer,
              message:
                `account ${id} is listed in two files (first at ${where(first.file, first.pointer)}): list ` +
                "each account once",
            },
            f.file,
            f.locate,
          ),
        );
      } else accountSeen.set(id, { file: f, pointer });
    });
    for (const key of ["account_id", "safety"] as const) {
      if (!(key in doc)) continue;
      const value =
        key === "safety" ? String(asRecord(doc.safety)?.max_deletes ?? DEFAULT_MAX_DELETES) : JSON.stringify(doc[key]);
      const first = settingSeen.get(key);
      if (!first) settingSeen.set(key, { file: f, value });
      else if (first.value !== value) {
        problems.push(
          toProblem(
            {
              pointer: `/${key}`,
              message:
                `${key} differs from the one in ${where(first.file, `/${key}`)}: files of one ` +
                `configuration must agree`,
            },
            f.file,
            f.locate,
          ),
        );
      }
    }
  }
  return problems;
}

function desiredState(files: CheckedFile[], secrets: SecretValues): DesiredState {
  const state: DesiredState = {
    version: 1,
    safety: { max_deletes: DEFAULT_MAX_DELETES },
    zones: [],
    secrets,
    files: files.map((f) => f.file),
  };
  for (const f of files) {
    // Made from the document as written: the desired state carries references, never values.
    const doc = f.declared as FileDocument;
    if (doc.account_id !== undefined) state.account_id = doc.account_id;
    if (doc.safety?.max_deletes !== undefined) state.safety = { max_deletes: doc.safety.max_deletes };
    doc.zones.forEach((zone, i) => {
      const pos = f.locate(`/zones/${i}`);
      const normalized = normalizeZone(zone, { file: f.file, line: pos.line, column: pos.column });
      normalized.declared = structuredClone(zone) as unknown as Record<string, unknown>;
      state.zones.push(normalized);
    });
    (doc.accounts ?? []).forEach((entry, i) => {
      const pos = f.locate(`/accounts/${i}`);
      const env = tokenVariable(asString(entry.api_token));
      const source = { file: f.file, line: pos.line, column: pos.column };
      const account = normalizeAccount(entry, env !== undefined ? { env } : undefined, source, doc.zones);
      account.declared = structuredClone(entry) as Record<string, unknown>;
      (state.accounts ??= []).push(account);
    });
  }
  return state;
}

function tokensElsewhere(files: CheckedFile[]): ConfigProblem[] {
  const tokens = new Map<string, string>();
  for (const f of files)
    for (const [name, place] of f.tokens) if (!tokens.has(name)) tokens.set(name, `${f.file} ${place}`);
  if (tokens.size === 0) return [];
  const out: ConfigProblem[] = [];
  for (const f of files) {
    for (const [pointer, template] of f.templates) {
      if (/^\/accounts\/\d+\/api_token$/.test(pointer)) continue;
      const name = referencedNames(template).find((n) => tokens.has(n));
      if (name === undefined) continue;
      const message =
        `\${env:${name}} holds an API token (${tokens.get(name)}): a token variable is refused anywhere ` +
        "else in the file, so that it goes only to the API as who applies (use another variable)";
      out.push(toProblem({ pointer, message }, f.file, f.locate));
    }
  }
  return out;
}
