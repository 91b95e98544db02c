// The log fields a Logpush write names.
// Spec: docs/configuration.md, `logs.logpush_jobs`.
import { distance } from "fastest-levenshtein";
import { AnswerShapeError, ApiError, NetworkError } from "../../errors.js";
import { clipJson } from "../../redact.js";
import type { ReadContext } from "../types.js";

/** Where a write names log fields: the filter's keys and output_options.field_names, each in order, once. */
export interface NamedFields {
  filter: string[];
  field_names: string[];
}

/** The keys of a filter's conditions, through `and` / `or` groups at any depth, in order, each once. */
export function filterKeys(node: unknown): string[] {
  const out = new Set<string>();
  const walk = (n: unknown): void => {
    if (n === null || typeof n !== "object") return;
    if (Array.isArray(n)) {
      n.forEach(walk);
      return;
    }
    const r = n as Record<string, unknown>;
    if (Array.isArray(r.and)) r.and.forEach(walk);
    if (Array.isArray(r.or)) r.or.forEach(walk);
    if (r.where !== undefined) walk(r.where);
    if (typeof r.key === "string") out.add(r.key);
  };
  walk(node);
  return [...out];
}

export function fieldsWritten(body: Record<string, unknown>): NamedFields | undefined {
  const filter = typeof body.filter === "string" && body.filter.trim() !== "" ? filterKeys(parseJson(body.filter)) : [];
  const options = body.output_options;
  const names =
    options !== null && typeof options === "object" && Array.isArray((options as Record<string, unknown>).field_names)
      ? ((options as Record<string, unknown>).field_names as unknown[]).filter(
          (n): n is string => typeof n === "string",
        )
      : [];
  const field_names = [...new Set(names)];
  return filter.length > 0 || field_names.length > 0 ? { filter, field_names } : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Our own serialisation: never malformed; nothing to check if it were.
    return undefined;
  }
}

/** Up to three known fields close enough to `name` to be what was meant, closest first. */
export function closeMatches(name: string, known: Iterable<string>, max = 3): string[] {
  const lower = name.toLowerCase();
  const limit = Math.max(2, Math.floor(name.length / 3));
  return [...known]
    .map((k) => ({ k, d: k.toLowerCase() === lower ? 0 : distance(name, k) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .slice(0, max)
    .map((x) => x.k);
}

/** `base`: the path of the zone or account whose dataset it is (`zones/{id}`, `accounts/{id}`). */
function fieldsPath(base: string, dataset: string): string {
  return [base, "logpush", "datasets", dataset, "fields"].join("/");
}

export function parseFieldsAnswer(res: unknown, path: string): ReadonlySet<string> {
  const bad = (why: string) =>
    new AnswerShapeError(
      `the API answered GET ${path} with ${clipJson(res, 60) ?? "nothing"}, expected an object of field ` +
        `name → description (${why}); the job's fields were not checked and nothing was changed`,
    );
  if (res === null || typeof res !== "object" || Array.isArray(res)) throw bad("not an object");
  const entries = Object.entries(res as Record<string, unknown>);
  if (entries.length === 0) throw bad("no field at all");
  const odd = entries.find(([, v]) => v !== null && typeof v !== "string");
  if (odd) throw bad(`the value of ${JSON.stringify(odd[0])} is not a description`);
  return new Set(entries.map(([k]) => k));
}

interface Outcome {
  from: string;
  fields?: ReadonlySet<string>;
  error?: unknown;
}

/** The dataset's field names, read once per run for zones and once for accounts. */
async function datasetFields(ctx: ReadContext, base: string, dataset: string): Promise<ReadonlySet<string>> {
  const ask = (key: string) =>
    ctx.memo<Outcome>(key, () => {
      const path = fieldsPath(base, dataset);
      return ctx.client.request<unknown>("GET", path).then(
        (res) => ({ from: base, fields: parseFieldsAnswer(res, path) }),
        (error: unknown) => ({ from: base, error }),
      );
    });
  const scope = base.split("/")[0];
  let got = await ask(`logpush-fields:${scope}:${dataset}`);
  if (got.error !== undefined && got.from !== base) got = await ask(`logpush-fields:${dataset}:${base}`);
  if (got.error !== undefined) throw got.error;
  return got.fields!;
}

function unitWord(base: string): "zone" | "account" {
  return base.startsWith("accounts/") ? "account" : "zone";
}

/** What to do when the fields could not be read, by the API's status. */
function advice(err: ApiError | NetworkError, dataset: string, word: string): string {
  if (err instanceof NetworkError) return "run plan again";
  const status = err.info.status;
  if (status === 401 || status === 403)
    return `give the API token "Logs: Edit" on this ${word} (the fields list needs it), then run plan again`;
  if (status === 400 || status === 404)
    return `check the dataset name (${dataset}) and that the ${word} has Logpush for it, then run plan again`;
  return "run plan again; if it persists, check the dataset name";
}

export async function checkJobFields(
  ctx: ReadContext,
  base: string,
  job: { name: string; dataset: string },
  named: NamedFields,
): Promise<string[]> {
  let known: ReadonlySet<string>;
  try {
    known = await datasetFields(ctx, base, job.dataset);
  } catch (err) {
    if (!(err instanceof ApiError || err instanceof NetworkError)) throw err;
    return [
      `logpush job "${job.name}": could not read the fields of dataset ${job.dataset} to check the ` +
        `${describeNamed(named)} (${err.message}); nothing was changed: ${advice(err, job.dataset, unitWord(base))}`,
    ];
  }
  const errors: string[] = [];
  const report = (where: string, field: string) => {
    const close = closeMatches(field, known);
    errors.push(
      `logpush job "${job.name}": ${where} names ${JSON.stringify(field)}, which dataset ${job.dataset} does ` +
        `not have` +
        (close.length > 0 ? ` (did you mean ${close.join(", ")}?)` : "") +
        `; the API would refuse the job at apply (GET ${fieldsPath(base, job.dataset)} lists the ` +
        `dataset's fields); nothing was changed`,
    );
  };
  for (const f of named.filter) if (!known.has(f)) report("the filter", f);
  for (const f of named.field_names) if (!known.has(f)) report("output_options.field_names", f);
  return errors;
}

function describeNamed(named: NamedFields): string {
  const parts = [
    ...(named.filter.length > 0 ? ["filter's keys"] : []),
    ...(named.field_names.length > 0 ? ["output_options.field_names"] : []),
  ];
  return parts.join(" and ");
}
