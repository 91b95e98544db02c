// Semantic rules of the logpush section.
// Spec: docs/configuration.md, `logs.logpush_jobs`.
import { isSecretParam, safeDecode } from "../../redact.js";
import { hasEnvReference } from "../../template.js";
import {
  accountsOf,
  asArray,
  asRecord,
  asString,
  childPointer,
  duplicateEntries,
  itemsOf,
  literalOnly,
  pruneNeedsList,
  zonesOf,
  type Finding,
  type Rec,
  type Rule,
} from "../rules.js";
import {
  countFilterOperators,
  filterByteLength,
  FILTER_MAX_BYTES,
  FILTER_MAX_OPERATORS,
  LIST_OPERATORS,
} from "./filter.js";
import { outputOptionsFromLogpull } from "./live.js";
import type { LogpushFilter } from "./types.js";

export function* jobsOf(doc: unknown): Generator<{ job: Rec; pointer: string; zone: Rec }> {
  for (const { zone, pointer } of zonesOf(doc)) {
    for (const { item, pointer: jobPointer } of itemsOf(
      asRecord(zone.logs)?.logpush_jobs,
      `${pointer}/logs/logpush_jobs`,
    )) {
      yield { job: item, pointer: jobPointer, zone };
    }
  }
}

function* everyJobOf(doc: unknown): Generator<{ job: Rec; pointer: string }> {
  yield* jobsOf(doc);
  for (const { account, pointer } of accountsOf(doc)) {
    for (const { item, pointer: jobPointer } of itemsOf(account.logpush_jobs, `${pointer}/logpush_jobs`)) {
      yield { job: item, pointer: jobPointer };
    }
  }
}

function* jobLists(doc: unknown): Generator<{ list: unknown; pointer: string }> {
  for (const { zone, pointer } of zonesOf(doc))
    yield { list: asRecord(zone.logs)?.logpush_jobs, pointer: `${pointer}/logs/logpush_jobs` };
  for (const { account, pointer } of accountsOf(doc))
    yield { list: account.logpush_jobs, pointer: `${pointer}/logpush_jobs` };
}

/** Two jobs are one when they pin one id, or pin none and share name and dataset. */
export const uniqueJobs: Rule = (doc) => {
  const findings: Finding[] = [];
  const hint = (j: Rec) => {
    const name = asString(j.name);
    const dataset = asString(j.dataset);
    return name === undefined || dataset === undefined
      ? undefined
      : { key: JSON.stringify([name, dataset]), shown: `named '${name}' with dataset '${dataset}'` };
  };
  for (const { list, pointer } of jobLists(doc)) {
    findings.push(
      ...duplicateEntries(list, pointer, "name", hint, {
        one: "Logpush job",
        many: "Logpush jobs",
      }),
    );
  }
  return findings;
};

/** A job id the YAML reader could not hold exactly. */
export const exactJobIds: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { job, pointer } of everyJobOf(doc)) {
    if (typeof job.id === "number" && !Number.isSafeInteger(job.id)) {
      findings.push({
        pointer: `${pointer}/id`,
        message:
          `the id ${String(job.id)} is beyond what a YAML number holds exactly (9007199254740991): ` +
          `write it as a quoted string, e.g. id: "12345678901234567890"`,
      });
    }
  }
  return findings;
};

/** The filter's limits, measured on what is sent: the compact JSON string. */
export const filterLimits: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { job, pointer } of everyJobOf(doc)) {
    const filter = asRecord(job.filter);
    if (!filter || !asRecord(filter.where)) continue;
    const operators = countFilterOperators(filter as unknown as LogpushFilter);
    if (operators > FILTER_MAX_OPERATORS) {
      findings.push({
        pointer: `${pointer}/filter`,
        message:
          `the filter has ${operators} operators (conditions and and/or groups): Logpush allows at ` +
          `most ${FILTER_MAX_OPERATORS}`,
      });
    }
    const bytes = filterByteLength(filter as unknown as LogpushFilter);
    if (bytes > FILTER_MAX_BYTES) {
      findings.push({
        pointer: `${pointer}/filter`,
        message: `the filter is ${bytes} bytes once serialised: Logpush allows at most ${FILTER_MAX_BYTES}`,
      });
    }
  }
  return findings;
};

/** in / !in compare with a list; every other operator with a single value. */
export const filterValues: Rule = (doc) => {
  const findings: Finding[] = [];
  const visit = (node: unknown, pointer: string, top: boolean): void => {
    const rec = asRecord(node);
    if (!rec) return;
    for (const group of ["and", "or"] as const) {
      asArray(rec[group]).forEach((child, i) => {
        visit(child, childPointer(`${pointer}/${group}`, i), false);
      });
    }
    if (Object.keys(rec).length === 0 && !top) {
      findings.push({ pointer, message: "an empty condition: give {key, operator, value}, an 'and' or an 'or' group" });
      return;
    }
    const operator = asString(rec.operator);
    if (operator === undefined || !("value" in rec)) return;
    const isList = Array.isArray(rec.value);
    if (LIST_OPERATORS.has(operator) && !isList) {
      findings.push({
        pointer: `${pointer}/value`,
        message: `operator '${operator}' needs a list value, e.g. [a, b] (got a single value)`,
      });
    } else if (!LIST_OPERATORS.has(operator) && isList) {
      findings.push({
        pointer: `${pointer}/value`,
        message: `operator '${operator}' compares with a single value; use 'in' to match any of a list`,
      });
    } else if (isList && (rec.value as unknown[]).length === 0) {
      findings.push({
        pointer: `${pointer}/value`,
        message: `operator '${operator}' needs at least one value in its list`,
      });
    }
  };
  for (const { job, pointer } of everyJobOf(doc)) {
    const filter = asRecord(job.filter);
    if (filter && "where" in filter) visit(filter.where, `${pointer}/filter/where`, true);
  }
  return findings;
};

/** A YAML flow value a reader can paste: `{field_names: [RayID, ClientIP], timestamp_format: rfc3339}`. */
function flow(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flow).join(", ")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.entries(value)
      .map(([k, v]) => `${flow(k)}: ${flow(v)}`)
      .join(", ")}}`;
  if (typeof value === "string")
    return /^[A-Za-z0-9_./-]+$/.test(value) && !/^(true|false|null|~|[-+.0-9].*)$/i.test(value)
      ? value
      : JSON.stringify(value);
  return String(value);
}

/** `logpull_options` and `frequency` are deprecated by Cloudflare. */
const deprecatedJobKeys: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { job, pointer } of everyJobOf(doc)) {
    if (job.logpull_options !== undefined) {
      const text = typeof job.logpull_options === "string" ? job.logpull_options : "";
      const { options, unknown } = outputOptionsFromLogpull(text);
      const has = job.output_options !== undefined;
      const lost =
        unknown.length > 0
          ? `; ${unknown.join(", ")} ha${unknown.length > 1 ? "ve" : "s"} no output_options counterpart and ` +
            `cannot be carried over`
          : "";
      findings.push({
        pointer: `${pointer}/logpull_options`,
        at: "key",
        message: has
          ? `logpull_options is deprecated (Cloudflare: "use output_options"), and output_options already ` +
            `states the job's options: remove logpull_options${lost}`
          : `logpull_options is deprecated (Cloudflare: "use output_options"): write output_options: ` +
            `${flow(options)} instead${lost}`,
      });
    }
    if (job.frequency !== undefined) {
      const edge = job.kind === "edge";
      const keys = edge
        ? "max_upload_interval_seconds (30 to 300)"
        : "max_upload_interval_seconds (30 to 300), max_upload_records (1000 to 1000000), max_upload_bytes " +
          "(5000000 to 1000000000)";
      const which =
        job.frequency === "low"
          ? `for fewer, larger batches (what low asked for) raise them, e.g. max_upload_interval_seconds: ` +
            `300${edge ? "" : ", max_upload_records: 1000000"}`
          : `high (the old default: more, smaller batches) is what the job does with none of them set (the ` +
            `API's defaults: max_upload_interval_seconds 30${edge ? "" : ", max_upload_records 100000"}), so ` +
            `remove frequency`;
      findings.push({
        pointer: `${pointer}/frequency`,
        at: "key",
        message:
          `frequency is deprecated (Cloudflare: "use max_upload_*"): state the batch limits with ` +
          `${keys}; Cloudflare documents no exact equivalent: ${which}`,
      });
    }
  }
  return findings;
};

const ATTACK_TRAFFIC_DATASETS: readonly string[] = ["http_requests", "firewall_events", "network_analytics_logs"];

/** filter_attack_traffic on another dataset is a value the job cannot hold: refused before any call. */
const attackTrafficDatasets: Rule = (doc) => {
  const findings: Finding[] = [];
  for (const { job, pointer } of everyJobOf(doc)) {
    const dataset = asString(job.dataset);
    if (job.filter_attack_traffic === undefined || dataset === undefined) continue;
    if (ATTACK_TRAFFIC_DATASETS.includes(dataset)) continue;
    findings.push({
      pointer: `${pointer}/filter_attack_traffic`,
      at: "key",
      message:
        `filter_attack_traffic applies only to the datasets ${ATTACK_TRAFFIC_DATASETS.join(", ")}, not ` +
        `${dataset}: remove it from this job`,
    });
  }
  return findings;
};

export const pruneNeedsJobs: Rule = pruneNeedsList("logs", "logpush_jobs", "Logpush jobs");

// Secrets come from the environment.

/** Names of the secret query parameters of a destination whose value holds no `${env:…}` reference. */
export function literalSecretParams(destination: string): string[] {
  const q = destination.indexOf("?");
  if (q < 0) return [];
  const names: string[] = [];
  for (const pair of destination.slice(q + 1).split("&")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const name = safeDecode(pair.slice(0, eq));
    const value = pair.slice(eq + 1);
    if (isSecretParam(name) && value !== "" && !hasEnvReference(value)) names.push(name);
  }
  return names;
}

export const secretsFromEnvironment: Rule = (doc, ctx) => {
  const findings: Finding[] = [];
  for (const { list, pointer } of jobLists(doc)) {
    for (const { item: job, pointer: jobPointer } of itemsOf(list, pointer)) {
      const destPointer = `${jobPointer}/destination_conf`;
      const written = ctx.template(destPointer) ?? asString(job.destination_conf);
      if (written !== undefined) {
        for (const name of literalSecretParams(written)) {
          findings.push({
            pointer: destPointer,
            message:
              `the credential '${name}' is written literally: use ${name}=\${env:NAME} so that it ` +
              `comes from the environment (plan files keep only the reference)`,
          });
        }
      }
      const challengePointer = `${jobPointer}/ownership_challenge`;
      const challenge = ctx.template(challengePointer) ?? asString(job.ownership_challenge);
      if (challenge !== undefined && !hasEnvReference(challenge)) {
        findings.push({
          pointer: challengePointer,
          message:
            "ownership_challenge is written literally: use ${env:NAME} so that it comes from the " +
            "environment (plan files keep only the reference)",
        });
      }
    }
  }
  return findings;
};

/** A dataset names the fields zoneform reads before any review. */
const literalDatasets: Rule = literalOnly(function* (doc) {
  for (const { pointer } of everyJobOf(doc)) yield { pointer: `${pointer}/dataset`, what: "a Logpush job's dataset" };
});

export const LOGPUSH_RULES: readonly Rule[] = [
  literalDatasets,
  uniqueJobs,
  exactJobIds,
  deprecatedJobKeys,
  attackTrafficDatasets,
  filterLimits,
  filterValues,
  pruneNeedsJobs,
  secretsFromEnvironment,
];
