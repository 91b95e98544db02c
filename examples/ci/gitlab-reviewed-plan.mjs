#!/usr/bin/env node
// The GitLab recipe's plan note and its reading back (gitlab-ci.yml runs this file from the zoneform
// package it installed: `$(npm root --global)/zoneform/examples/ci/gitlab-reviewed-plan.mjs`). The same
// rules as the GitHub Action's plan comment, on GitLab's API (docs/ci.md, "The GitLab note"):
//
//   digest                  reads `zoneform show PLAN --format json` on stdin, prints its digest (the
//                           one zoneform computed from the file), nothing else decides it
//   note DIGEST MD ARTIFACT the merge request pipeline's plan job: ONE note on the merge request whose
//                           first line is the marker below, then the Markdown of `zoneform show PLAN
//                           --format markdown` (escaped by zoneform); only a note of the token's own
//                           user (GET /user) is ever updated
//   failed STEP EXIT        the same note saying that `zoneform STEP` failed: nothing to apply
//   reviewed ARTIFACT OUT   the default branch's apply job: the merge request merged as this commit,
//                           the marker on line 1 of a note of the token's own user for the head it was
//                           merged at, the job it names (a merge_request_event pipeline's, of that head,
//                           in this project), that job's artifact saved as OUT (a new file); prints the
//                           marker's digest, which the job compares with the digest zoneform computes
//                           from OUT before `zoneform apply OUT -c … --expect-digest DIGEST`
//   zoneform ARGS           runs `zoneform ARGS` (the one on PATH) with an allow-listed environment
//                           (zoneformEnv): every zoneform of the jobs goes through it; its exit code is
//                           zoneform's, or 3 when the configuration references a variable never passed
//
//   <!-- zoneform:plan v2 digest=sha256:<64 hex> head=<40 hex> job=<job id> -->
//   <!-- zoneform:plan v2 failed head=<40 hex> job=<job id> -->
//
// The marker is read from line 1 only, by an anchored pattern: below it is the plan, data (a zone name,
// a live description, an issuer), which decides nothing however it is shaped; a note by anyone else,
// whatever it starts with, is never read or edited. Any link of the chain missing, ambiguous or
// different stops with a message saying what was expected (exit 1); nothing is written but OUT, last.
//
// Environment: GitLab's CI_* variables of the job, and ZONEFORM_GITLAB_TOKEN (a project access token
// with the `api` scope: the same token, so the same user, in the plan and the apply jobs); zoneform
// gets neither (docs/ci.md, "What zoneform is given"). Every call
// has a timeout and every answer a size bound; the token goes to CI_API_V4_URL only (https, or http
// to this machine), never along a redirect to another host (artifact downloads to object storage).
import { spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, realpathSync, statSync, writeSync } from "node:fs";
import { constants } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export const LEGACY_MARKER = "<!-- zoneform plan -->";
const MARKER =
  /^<!-- zoneform:plan v2 (?:digest=(sha256:[0-9a-f]{64})|(failed)) head=([0-9a-f]{40}) job=([1-9][0-9]{0,15}) -->$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const SHA = /^[0-9a-f]{40}$/;
const ID = /^[1-9][0-9]{0,15}$/;

/** Per call: the answer's headers and body within this. */
export const TIMEOUT_MS = 30_000;
/** A JSON answer's most bytes. */
const MAX_JSON_BYTES = 16 * 1024 * 1024;
/** A plan file's most bytes (zoneform reads no larger plan) and its `show --format json`'s. */
export const MAX_PLAN_BYTES = 64 * 1024 * 1024;
const MAX_SHOWN_BYTES = 80 * 1024 * 1024;
/** GitLab's longest note is 1 000 000 characters; the Markdown is cut far below (show --max-bytes). */
const MAX_NOTE_CHARS = 1_000_000;
const PER_PAGE = 100;
/** Pages of a list read at most (10 000 notes). */
export const MAX_PAGES = 100;
const MAX_REDIRECTS = 3;

/** A refusal or a failure with a message for the job's log: exit 1. */
export class Stop extends Error {}
class Usage extends Error {}

/** JSON text with its invisible and bidi characters escaped too. */
const visible = (json) =>
  json.replace(
    /[\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );

/** A value from GitLab or the environment, quoted and short, for a message: no control or bidi character. */
export function shown(v) {
  if (v === undefined) return "(none)";
  const safe = visible(JSON.stringify(v) ?? String(v));
  return safe.length > 200 ? `${safe.slice(0, 200)}…` : safe;
}

/** A name from a file (a variable's, a path), unquoted, for a message: no control or bidi character. */
const plain = (s) => visible(JSON.stringify(s).slice(1, -1));

export const isDigest = (s) => typeof s === "string" && DIGEST.test(s);
export const isSha = (s) => typeof s === "string" && SHA.test(s);
const isId = (n) => Number.isSafeInteger(n) && n > 0;

/** The marker line (no newline); throws on a value not of its shape. */
export function markerLine(m) {
  if (!isSha(m.head)) throw new Stop(`marker: head ${shown(m.head)} is not a commit sha`);
  if (!ID.test(String(m.job))) throw new Stop(`marker: job ${shown(m.job)} is not a job id`);
  if (m.kind === "plan" && !isDigest(m.digest)) throw new Stop(`marker: ${shown(m.digest)} is not sha256:<64 hex>`);
  return `<!-- zoneform:plan v2 ${m.kind === "plan" ? `digest=${m.digest}` : "failed"} head=${m.head} job=${m.job} -->`;
}

/** The marker on a note's first line, or undefined when line 1 is not exactly one. */
export function readMarker(body) {
  if (typeof body !== "string") return undefined;
  const end = body.indexOf("\n");
  const m = MARKER.exec(end < 0 ? body : body.slice(0, end));
  if (!m) return undefined;
  return m[2] ? { kind: "failed", head: m[3], job: m[4] } : { kind: "plan", digest: m[1], head: m[3], job: m[4] };
}

/** Whether the note is the user's own: its author's id is the token's (GET /user), and it is no system note. */
export const authoredBy = (note, me) => note?.system !== true && isId(note?.author?.id) && note.author.id === me.id;

/** The user's notes with the marker on line 1, oldest first. */
export function ownMarkedNotes(notes, me) {
  return [...notes]
    .filter((n) => authoredBy(n, me))
    .sort((a, b) => a.id - b.id)
    .flatMap((note) => {
      const marker = readMarker(note.body);
      return marker ? [{ note, marker }] : [];
    });
}

/**
 * The one note the plan job keeps: the user's oldest with the marker, else its oldest that starts
 * with the marker of this recipe's earlier versions (`<!-- zoneform plan -->` on line 1), else none.
 */
export function noteToUpdate(notes, me) {
  const marked = ownMarkedNotes(notes, me)[0];
  if (marked) return marked.note;
  return [...notes]
    .sort((a, b) => a.id - b.id)
    .find((n) => authoredBy(n, me) && typeof n.body === "string" && n.body.split("\n", 1)[0] === LEGACY_MARKER);
}

/** The one merge request of the project merged into `branch` as `sha` (its merge or squash commit). */
export function mergedRequest(requests, { sha, branch, project }) {
  const merged = requests.filter(
    (m) =>
      m?.state === "merged" &&
      m.project_id === project &&
      m.target_branch === branch &&
      (m.merge_commit_sha === sha || m.squash_commit_sha === sha),
  );
  if (merged.length === 0)
    throw new Stop(
      `${sha} is not the merge commit (or squash commit) of a merge request merged into ${branch}: changes go ` +
        "through one, so that their plan is reviewed (a fast-forward merge without squash makes neither: " +
        "docs/ci.md, The GitLab note). Nothing is applied.",
    );
  if (merged.length > 1)
    throw new Stop(
      `${sha} is the merge commit of ${merged.map((m) => `!${shown(m.iid)}`).join(", ")}: which one's plan to ` +
        "apply is not clear, so none is. Nothing is applied.",
    );
  const mr = merged[0];
  if (!isId(mr.iid)) throw new Stop(`GitLab gave the merge request no iid (${shown(mr.iid)}). Nothing is applied.`);
  if (!isSha(mr.sha))
    throw new Stop(`!${mr.iid}: GitLab gave no head commit (sha ${shown(mr.sha)}). Nothing is applied.`);
  return mr;
}

/** The marker of the user's own note on the merge request for the head it was merged at. */
export function reviewedMarker(notes, me, mr) {
  const own = ownMarkedNotes(notes, me);
  if (own.length === 0)
    throw new Stop(
      `!${mr.iid} has no plan note by ${shown(me.username)} (user ${me.id}; first line ` +
        "<!-- zoneform:plan v2 … -->): nothing was reviewed to apply; notes by other users are never read. " +
        "Nothing is applied.",
    );
  const forHead = own.filter((o) => o.marker.head === mr.sha);
  if (forHead.length === 0)
    throw new Stop(
      `the plan note on !${mr.iid} is for ${[...new Set(own.map((o) => o.marker.head))].join(", ")}, not for ` +
        `${mr.sha}, the head !${mr.iid} was merged at: the last commit's plan did not finish. Nothing is applied.`,
    );
  const distinct = new Set(forHead.map((o) => JSON.stringify(o.marker)));
  if (distinct.size > 1)
    throw new Stop(
      `!${mr.iid} has ${distinct.size} different plan notes by ${shown(me.username)} for ${mr.sha} ` +
        `(${forHead.map((o) => o.note.id).join(", ")}): which was reviewed is not clear. Nothing is applied.`,
    );
  const { marker } = forHead[0];
  if (marker.kind === "failed")
    throw new Stop(
      `the plan of !${mr.iid} at ${mr.sha} failed (job ${marker.job}): nothing was reviewed to apply. ` +
        "Nothing is applied.",
    );
  return marker;
}

/** Checks that the job is of a merge_request_event pipeline of `head` in this project; throws saying what differs. */
export function checkJob(job, pipeline, { jobId, head, project, iid }) {
  const problems = [];
  if (job?.id !== Number(jobId)) problems.push(`GitLab answered with job ${shown(job?.id)}`);
  if (job?.status !== "success") problems.push(`its status is ${shown(job?.status)}`);
  if (pipeline?.id !== job?.pipeline?.id) problems.push(`its pipeline is ${shown(job?.pipeline?.id)}`);
  if (pipeline?.project_id !== project) problems.push(`its pipeline belongs to project ${shown(pipeline?.project_id)}`);
  if (pipeline?.source !== "merge_request_event") problems.push(`its pipeline's source is ${shown(pipeline?.source)}`);
  if (pipeline?.sha !== head) problems.push(`its pipeline's commit is ${shown(pipeline?.sha)}`);
  if (problems.length > 0)
    throw new Stop(
      `the plan note on !${iid} names job ${jobId}, which is not the job that planned it: ${problems.join("; ")}; ` +
        `expected a successful job of a merge_request_event pipeline of ${head} in project ${project}. ` +
        "Nothing is applied.",
    );
}

/** The digest of `zoneform show PLAN --format json` (computed by zoneform from the file). */
export function digestOf(jsonText) {
  let doc;
  try {
    doc = JSON.parse(jsonText);
  } catch {
    throw new Stop("digest: the input is not JSON: pipe `zoneform show PLAN --format json` into it");
  }
  if (!isDigest(doc?.digest))
    throw new Stop(`digest: the JSON has no digest sha256:<64 hex> (${shown(doc?.digest)}): is it zoneform show's?`);
  return doc.digest;
}

// --- GitLab's API -------------------------------------------------------------------------------------

/** The value of a CI variable, checked; throws naming it. */
function variable(env, name, test, what) {
  const v = env[name];
  if (typeof v !== "string" || !test(v)) throw new Stop(`${name} ${shown(v)} is not ${what}`);
  return v;
}

/** https, or http to this machine (a GitLab or a stand-in on loopback). */
const secure = (url) =>
  url.protocol === "https:" || (url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname));

function apiBase(env) {
  const raw = variable(env, "CI_API_V4_URL", (v) => v !== "", "set (GitLab's API URL)");
  let url;
  try {
    url = new URL(raw.replace(/\/*$/, "/"));
  } catch {
    throw new Stop(`CI_API_V4_URL ${shown(raw)} is not a URL`);
  }
  if (!secure(url))
    throw new Stop(`CI_API_V4_URL ${shown(raw)}: the token goes over https only (http to this machine)`);
  return url;
}

/** Reads an answer's body, at most `max` bytes. */
async function readBody(res, max, what) {
  const length = Number(res.headers.get("content-length"));
  if (length > max) {
    await res.body?.cancel();
    throw new Stop(`${what}: the answer is ${length} bytes, more than ${max}`);
  }
  const chunks = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (size > max) throw new Stop(`${what}: the answer is more than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A call that got no (whole) answer, as a Stop naming it: the timeout, the network's error. */
function failed(what, err) {
  if (err instanceof Stop) return err;
  const why = err?.name === "TimeoutError" ? `no whole answer within ${TIMEOUT_MS} ms` : String(err?.message ?? err);
  return new Stop(`${what}: ${why}${err?.cause?.code ? ` (${err.cause.code})` : ""}`);
}

/** A client of the project's API with the token; `fetchImpl` for tests of the client itself. */
export function gitlab(env, fetchImpl = globalThis.fetch) {
  const base = apiBase(env);
  const token = variable(env, "ZONEFORM_GITLAB_TOKEN", (v) => v !== "", "set (a project access token, `api` scope)");
  const project = Number(variable(env, "CI_PROJECT_ID", (v) => ID.test(v), "a project id"));
  const at = (path) => new URL(path.replace(/^\//, ""), base);
  const label = (method, url) => `GitLab API ${method} ${url.pathname}`;

  async function call(method, path, { body, max = MAX_JSON_BYTES, raw = false } = {}) {
    let url = at(path);
    for (let hop = 0; ; hop++) {
      const what = label(method, url);
      // The token goes to GitLab's API origin only; a redirect elsewhere (object storage) goes without it.
      const own = url.origin === base.origin;
      let res;
      try {
        res = await fetchImpl(url, {
          method,
          redirect: "manual",
          signal: AbortSignal.timeout(TIMEOUT_MS),
          headers: {
            ...(own ? { "PRIVATE-TOKEN": token } : {}),
            ...(body === undefined ? {} : { "Content-Type": "application/json" }),
            Accept: raw ? "*/*" : "application/json",
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (err) {
        throw failed(what, err);
      }
      if (res.status >= 300 && res.status < 400 && raw && method === "GET") {
        await res.body?.cancel();
        const location = res.headers.get("location");
        if (!location || hop >= MAX_REDIRECTS) throw new Stop(`${what}: HTTP ${res.status}, no download to follow`);
        url = new URL(location, url);
        if (!secure(url)) throw new Stop(`${what}: redirected to ${shown(url.origin)}, not https`);
        continue;
      }
      let bytes;
      try {
        bytes = await readBody(res, max, what);
      } catch (err) {
        throw failed(what, err);
      }
      if (!res.ok) {
        let message = "";
        try {
          message = JSON.parse(bytes.toString("utf8"))?.message;
        } catch {}
        throw new Stop(`${what}: HTTP ${res.status}${message ? ` ${shown(message)}` : ""}`);
      }
      if (raw) return { bytes, headers: res.headers };
      try {
        return { json: JSON.parse(bytes.toString("utf8")), headers: res.headers };
      } catch {
        throw new Stop(`${what}: the answer is not JSON`);
      }
    }
  }

  const projectPath = (path) => `projects/${project}/${path}`;
  return {
    project,
    /** Who the token is. */
    async user() {
      const { json } = await call("GET", "user");
      if (!isId(json?.id)) throw new Stop(`GitLab API GET /user: no user id in the answer (${shown(json?.id)})`);
      return { id: json.id, username: json.username };
    },
    async get(path) {
      return (await call("GET", projectPath(path))).json;
    },
    /** Every item of a list, page by page (at most MAX_PAGES pages). */
    async list(path) {
      const items = [];
      for (let page = 1; page <= MAX_PAGES; page++) {
        const sep = path.includes("?") ? "&" : "?";
        const { json, headers } = await call("GET", projectPath(`${path}${sep}per_page=${PER_PAGE}&page=${page}`));
        if (!Array.isArray(json)) throw new Stop(`GitLab API GET ${path}: the answer is not a list`);
        items.push(...json);
        const next = headers.get("x-next-page");
        if (!next || json.length === 0) return items;
      }
      throw new Stop(`GitLab API GET ${path}: more than ${MAX_PAGES * PER_PAGE} items; nothing is decided on part`);
    },
    async send(method, path, body) {
      return (await call(method, projectPath(path), { body })).json;
    },
    async download(path, max) {
      return (await call("GET", projectPath(path), { raw: true, max })).bytes;
    },
  };
}

// --- zoneform's environment ------------------------------------------------------------------------------
//
// A merge request's configuration can reference any variable with `${env:NAME}`, and zoneform would put
// its value into a write (a Logpush destination, a description): zoneform gets what the files reference,
// its own variables and what Node needs, never GitLab's variables (CI_JOB_TOKEN among them) or this
// script's token, even when referenced. The same list as the GitHub Action's (src/action/cli-env.ts).

/** GitLab's variables of the job: never passed to zoneform. */
export const GITLAB_PREFIXES = ["CI_", "GITLAB_"];
/** This script's token: never passed to zoneform, though it is named like zoneform's own. */
const TOKEN_VARIABLE = "ZONEFORM_GITLAB_TOKEN";
/** zoneform's own variables (docs/connecting.md, docs/commands/README.md) and the locale's categories. */
const PASSED_PREFIXES = ["CLOUDFLARE_", "ZONEFORM_", "LC_"];
/** What Node and the HTTP client read, and zoneform's output settings, compared in upper case. */
const PASSED_NAMES = new Set([
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "NODE_EXTRA_CA_CERTS",
  "NODE_OPTIONS",
  "NO_COLOR",
  "COLUMNS",
]);
/** The file's one template syntax, as src/template.ts reads it: `$${` an escape, `${…}` up to the first `}`. */
const TEMPLATE_TOKEN = /\$\$\{|\$\{([^}]*)\}/g;
/** zoneform reads no larger configuration file (src/config/load.ts). */
const MAX_CONFIG_BYTES = 10 * 1024 * 1024;

/** Why a variable is never given to zoneform, or undefined when it may be. */
export function neverPassed(name, env) {
  const upper = name.toUpperCase();
  if (GITLAB_PREFIXES.some((p) => upper.startsWith(p))) return "a GitLab variable";
  if (upper === TOKEN_VARIABLE) return "this script's token";
  // A token may sit in a variable of any name too (`MY_TOKEN: $ZONEFORM_GITLAB_TOKEN`).
  const tokens = [env[TOKEN_VARIABLE], env.CI_JOB_TOKEN].filter((v) => typeof v === "string" && v !== "");
  if (tokens.includes(env[name])) return "it holds a GitLab token";
  return undefined;
}

/** zoneform's environment: the referenced variables, CLOUDFLARE_*, ZONEFORM_*, LC_*, PASSED_NAMES, less neverPassed. */
export function zoneformEnv(env, referenced) {
  const wanted = new Set(referenced);
  const out = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || neverPassed(name, env) !== undefined) continue;
    const upper = name.toUpperCase();
    if (wanted.has(name) || PASSED_NAMES.has(upper) || PASSED_PREFIXES.some((p) => upper.startsWith(p)))
      out[name] = value;
  }
  return out;
}

/** The `${env:…}` names of a text, as written (`$${` escapes left out). */
export function referencedNames(text) {
  return [...text.matchAll(TEMPLATE_TOKEN)].flatMap((m) => (m[1]?.startsWith("env:") ? [m[1].slice(4)] : []));
}

/** The configuration zoneform ARGS reads: `-c`/`--config`, else zoneform.yaml. */
export function configArgument(args) {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") break;
    if ((a === "-c" || a === "--config") && i + 1 < args.length) return args[i + 1];
    if (a.startsWith("--config=")) return a.slice("--config=".length);
    if (a.startsWith("-c") && a.length > 2 && !a.startsWith("--")) return a.slice(2);
  }
  return "zoneform.yaml";
}

/** The references of the configuration's files (the file, or the *.yaml / *.yml of the folder), as zoneform reads them. */
export function configReferences(config, cwd) {
  const path = resolve(cwd, config);
  let files;
  try {
    files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((n) => /\.ya?ml$/i.test(n))
          .sort()
          .map((n) => join(path, n))
      : [path];
  } catch {
    return []; // zoneform says why it cannot be read
  }
  return files.flatMap((file) => {
    let text;
    try {
      const st = statSync(file);
      if (!st.isFile() || st.size > MAX_CONFIG_BYTES) return []; // zoneform refuses it, saying why
      text = readFileSync(file, "utf8");
    } catch {
      return [];
    }
    const rel = relative(cwd, file);
    const shownFile = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
    return referencedNames(text).map((name) => ({ name, file: shownFile }));
  });
}

/** One line naming each reference of a variable zoneform is never given, and its file; undefined when none. */
export function refusedReferences(refs, env) {
  const named = [
    ...new Set(
      refs.flatMap(({ name, file }) => {
        const why = neverPassed(name, env);
        return why === undefined ? [] : [`\${env:${plain(name)}} in ${plain(file)} (${why})`];
      }),
    ),
  ];
  if (named.length === 0) return undefined;
  return (
    `${named.join(", ")}: GitLab's variables (${GITLAB_PREFIXES.map((p) => `${p}*`).join(", ")}), ` +
    `${TOKEN_VARIABLE} and the job token are never passed to zoneform; give the value a variable of its own`
  );
}

/**
 * Runs `zoneform ARGS` with zoneformEnv's environment, its output the job's; resolves with its exit
 * code (128 + the signal's number when a signal ended it), or 3 (invalid input) without running it
 * when the configuration references a variable never passed.
 */
export async function runZoneform(args, env, { log = () => {}, cwd = process.cwd(), spawnImpl = spawn } = {}) {
  const refs = configReferences(configArgument(args), cwd);
  const refused = refusedReferences(refs, env);
  if (refused !== undefined) {
    log(`gitlab-reviewed-plan: zoneform was not run: ${refused}`);
    return 3;
  }
  const names = refs.map((r) => r.name);
  const child = spawnImpl("zoneform", args, { cwd, env: zoneformEnv(env, names), stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve(code ?? 128 + (constants.signals[signal] ?? 0)));
  });
}

// --- the commands ----------------------------------------------------------------------------------------

/** The merge request pipeline's commit, job and merge request, checked. */
function planJob(env) {
  if (env.CI_PIPELINE_SOURCE !== "merge_request_event")
    throw new Stop(`CI_PIPELINE_SOURCE is ${shown(env.CI_PIPELINE_SOURCE)}: the plan note is a merge request's`);
  const type = env.CI_MERGE_REQUEST_EVENT_TYPE;
  if (type !== undefined && type !== "" && type !== "detached")
    throw new Stop(
      `CI_MERGE_REQUEST_EVENT_TYPE is ${shown(type)}: in a merged results pipeline the commit planned is not ` +
        "the merge request's head, which the apply checks the plan was made at; run plain merge request " +
        "pipelines (docs/ci.md, The GitLab note)",
    );
  return {
    head: variable(env, "CI_COMMIT_SHA", isSha, "a commit sha"),
    job: variable(env, "CI_JOB_ID", (v) => ID.test(v), "a job id"),
    iid: variable(env, "CI_MERGE_REQUEST_IID", (v) => ID.test(v), "a merge request iid"),
    url: /^https?:\/\/[^\s()<>[\]"'`]+$/.test(env.CI_JOB_URL ?? "") ? env.CI_JOB_URL : undefined,
  };
}

const jobLink = (p) => (p.url ? `[job ${p.job}](${p.url})` : `job ${p.job}`);

/** Creates the plan note, or updates the user's own: one per merge request. */
async function upsertNote(api, iid, body, log) {
  if (body.length > MAX_NOTE_CHARS)
    throw new Stop(`the note is ${body.length} characters, more than GitLab's ${MAX_NOTE_CHARS}`);
  const me = await api.user();
  const notes = await api.list(`merge_requests/${iid}/notes?sort=asc&order_by=created_at`);
  const mine = noteToUpdate(notes, me);
  if (mine) {
    await api.send("PUT", `merge_requests/${iid}/notes/${mine.id}`, { body });
    log(`Updated the plan note ${mine.id} on !${iid}.`);
  } else {
    const made = await api.send("POST", `merge_requests/${iid}/notes`, { body });
    log(`Created the plan note ${isId(made?.id) ? made.id : ""} on !${iid}.`);
  }
}

/** The artifact's path in the job (a relative path of plain names), for the API's URL. */
function artifactPath(path) {
  if (
    typeof path !== "string" ||
    !/^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/.test(path) ||
    /(^|\/)\.\.?(\/|$)/.test(path)
  )
    throw new Usage(`the artifact path ${shown(path)} is not a relative path of plain names`);
  return path;
}

async function readStdin(max) {
  const chunks = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += chunk.length;
    if (size > max) throw new Stop(`digest: the input is more than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Runs one command; returns what goes to stdout. `log` writes a line to stderr (the job's log). */
export async function run(argv, env, { log = () => {}, stdin = () => readStdin(MAX_SHOWN_BYTES), fetchImpl } = {}) {
  const [command, ...args] = argv;
  const arity = { digest: 0, note: 3, failed: 2, reviewed: 2 };
  if (!(command in arity) || args.length !== arity[command])
    throw new Usage(
      "usage: gitlab-reviewed-plan.mjs digest < SHOWN.json | note DIGEST MARKDOWN_FILE ARTIFACT | " +
        "failed validate|plan EXIT | reviewed ARTIFACT OUT_FILE",
    );
  if (command === "digest") return `${digestOf(await stdin())}\n`;

  if (command === "note" || command === "failed") {
    const p = planJob(env);
    let body;
    if (command === "note") {
      const [digest, markdownFile, artifact] = args;
      if (!isDigest(digest)) throw new Usage(`note: the digest ${shown(digest)} is not sha256:<64 hex>`);
      artifactPath(artifact);
      let markdown;
      try {
        if (statSync(markdownFile).size > MAX_NOTE_CHARS * 4) throw new Error("too large for a note");
        markdown = readFileSync(markdownFile, "utf8");
      } catch (err) {
        throw new Stop(`note: ${markdownFile}: ${err.message}`);
      }
      body =
        `${markerLine({ kind: "plan", digest, head: p.head, job: p.job })}\n${markdown.trimEnd()}\n\n` +
        `Commit \`${p.head}\`, ${jobLink(p)}: the plan is that job's artifact \`${artifact}\` ` +
        `(\`zoneform show ${artifact}\`). After the merge, the apply job applies exactly this plan (this digest, ` +
        "from that artifact) or nothing.\n";
    } else {
      const [step, exit] = args;
      if (step !== "validate" && step !== "plan")
        throw new Usage(`failed: the step is validate or plan, not ${shown(step)}`);
      if (!/^[0-9]{1,3}$/.test(exit)) throw new Usage(`failed: the exit code ${shown(exit)} is not a number`);
      body =
        `${markerLine({ kind: "failed", head: p.head, job: p.job })}\n### zoneform plan failed\n\n` +
        `\`zoneform ${step}\` failed (exit ${exit}) at commit \`${p.head}\`, ${jobLink(p)}: there is no reviewed ` +
        "plan of this commit, so nothing is applied from it. The job's log says why.\n";
    }
    await upsertNote(gitlab(env, fetchImpl), p.iid, body, log);
    return "";
  }

  // reviewed
  const [artifact, out] = args;
  artifactPath(artifact);
  const api = gitlab(env, fetchImpl);
  const sha = variable(env, "CI_COMMIT_SHA", isSha, "a commit sha");
  const branch = variable(env, "CI_COMMIT_BRANCH", (v) => v !== "", "a branch (the apply runs on a push to one)");
  const mr = mergedRequest(await api.list(`repository/commits/${sha}/merge_requests`), {
    sha,
    branch,
    project: api.project,
  });
  const me = await api.user();
  const notes = await api.list(`merge_requests/${mr.iid}/notes?sort=asc&order_by=created_at`);
  const marker = reviewedMarker(notes, me, mr);
  const job = await api.get(`jobs/${marker.job}`).catch((err) => {
    throw new Stop(`the plan note on !${mr.iid} names job ${marker.job}, which could not be read (${err.message})`);
  });
  const pipelineId = job?.pipeline?.id;
  if (!isId(pipelineId)) throw new Stop(`job ${marker.job}: GitLab gave no pipeline (${shown(pipelineId)})`);
  const pipeline = await api.get(`pipelines/${pipelineId}`);
  checkJob(job, pipeline, { jobId: marker.job, head: mr.sha, project: api.project, iid: mr.iid });
  const bytes = await api
    .download(`jobs/${marker.job}/artifacts/${artifact.split("/").map(encodeURIComponent).join("/")}`, MAX_PLAN_BYTES)
    .catch((err) => {
      throw new Stop(
        `job ${marker.job} of !${mr.iid} has no artifact ${artifact} to read (${err.message}): it expired, or the ` +
          "plan job did not keep it. Nothing is applied.",
      );
    });
  // A new file: never through a link or over a file the checkout holds.
  let fd;
  try {
    fd = openSync(out, "wx", 0o600);
  } catch (err) {
    throw new Stop(
      `${out}: ${err.code === "EEXIST" ? "already exists: the plan is saved as a new file" : err.message}`,
    );
  }
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  log(
    `The plan reviewed on !${mr.iid}: the note of ${shown(me.username)} for ${mr.sha}, digest ${marker.digest}, ` +
      `the artifact ${artifact} of job ${marker.job} (pipeline ${pipelineId}), saved as ${out}.`,
  );
  return `${marker.digest}\n`;
}

/** Whether this file is the program node runs (not a module a test imports), through any link to it. */
function isMain() {
  try {
    return process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  const log = (line) => process.stderr.write(`${line}\n`);
  const [command, ...rest] = process.argv.slice(2);
  if (command === "zoneform") {
    // A signal from the job reaches zoneform too (one process group): it decides, and its exit code is the job's.
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => {});
    runZoneform(rest, process.env, { log }).then(
      (code) => {
        process.exitCode = code;
      },
      (err) => {
        log(`gitlab-reviewed-plan: zoneform could not be run: ${err?.message ?? err}`);
        process.exitCode = 1;
      },
    );
  } else {
    run(process.argv.slice(2), process.env, { log }).then(
      (text) => process.stdout.write(text),
      (err) => {
        const known = err instanceof Stop || err instanceof Usage;
        log(`gitlab-reviewed-plan: ${known ? err.message : `internal error: ${err?.message ?? err}`}`);
        process.exitCode = err instanceof Usage ? 2 : 1;
      },
    );
  }
}
