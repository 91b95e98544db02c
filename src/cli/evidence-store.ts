// The evidence directory, at the edge: `audit --evidence-dir` adds a run's record under a dated name that is never
// reused (made by a hard link, which fails when the name exists), each record naming the one before it with its
// sha256.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, link, mkdir, readdir, unlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type EvidenceFile, sha256 } from "../audit/index.js";
import { RuntimeError, UsageError } from "../errors.js";
import { describeReadProblem, FileReadError, readRegularFile } from "../read-file.js";

const RECORD = /^zoneform-audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-\d{3}\.json$/;
const MAX_RECORD_BYTES = 64 * 1024 * 1024;
const MAX_SEQUENCE = 999;

function stamp(now: Date): string {
  return now.toISOString().slice(0, 19).replace(/:/g, "-");
}

/** The records of `dir`, oldest first, each read whole (a regular file, bounded). */
export async function readEvidenceDir(dir: string, label: string): Promise<EvidenceFile[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => RECORD.test(n)).sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${label}: the directory cannot be read (${code ?? String(err)})`);
  }
  const out: EvidenceFile[] = [];
  for (const name of names) {
    try {
      out.push({ name, text: (await readRegularFile(join(dir, name), MAX_RECORD_BYTES)).toString("utf8") });
    } catch (err) {
      if (!(err instanceof FileReadError)) throw err;
      throw new UsageError(`${label}/${name}: ${describeReadProblem(err.problem, MAX_RECORD_BYTES)}`);
    }
  }
  return out;
}

/**
 * `--evidence-dir DIR`, before the audit: made when missing, and refused at once when it cannot be written or its
 * records cannot be read, so no audit runs for a record it cannot keep.
 */
export async function openEvidenceDir(cwd: string, dir: string): Promise<string> {
  const path = resolve(cwd, dir);
  try {
    await mkdir(path, { recursive: true });
    await access(path, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`--evidence-dir ${dir}: the directory cannot be made or written (${code ?? String(err)})`);
  }
  await readEvidenceDir(path, `--evidence-dir ${dir}`);
  return path;
}

/** Adds a run's record (the audit's JSON document) to `dir`, naming the latest record before it with its sha256. */
export async function recordRun(dir: string, doc: Record<string, unknown>, now: Date): Promise<string> {
  await mkdir(dir, { recursive: true });
  const earlier = await readEvidenceDir(dir, "--evidence-dir");
  const last = earlier.at(-1);
  const text = `${JSON.stringify(
    { ...doc, evidence: { previous: last ? { file: last.name, sha256: sha256(last.text) } : null } },
    null,
    2,
  )}\n`;
  const temporary = join(dir, `.zoneform-record-${randomBytes(6).toString("hex")}.tmp`);
  await writeFile(temporary, text, { flag: "wx", mode: 0o644 });
  try {
    for (let n = 1; n <= MAX_SEQUENCE; n++) {
      const name = `zoneform-audit-${stamp(now)}Z-${String(n).padStart(3, "0")}.json`;
      try {
        await link(temporary, join(dir, name));
        return name;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
    throw new RuntimeError(`--evidence-dir ${dir}: ${MAX_SEQUENCE} records of this second already; nothing was added`);
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}
