// The period on record (PCI DSS 11.6.1 asks for the checks at least weekly): what `audit --evidence-dir`
// kept, read back as the assessor reads it. Pure. Spec: docs/commands/evidence.md.
import { createHash } from "node:crypto";

export interface EvidenceFile {
  name: string;
  text: string;
}

interface RunSummary {
  file: string;
  sha256: string;
  run_at?: string;
  result: "pass" | "fail" | "unreadable";
  findings: number;
}

interface FindingSpan {
  zone_id: string;
  type: string;
  subject: string;
  requirement?: string;
  message: string;
  first_seen: string;
  cleared?: string;
}

interface Gap {
  from: string;
  to: string;
  days: number;
}

interface Tampered {
  file: string;
  why: string;
}

export interface Period {
  window?: Window;
  runs: RunSummary[];
  findings: FindingSpan[];
  gaps: Gap[];
  tampered: Tampered[];
}

/** More days than this between two runs is a gap in the weekly evaluation. */
export const MAX_GAP_DAYS = 7;
const DAY = 86_400_000;

export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Rec) : undefined;
const list = (v: unknown): Rec[] => (Array.isArray(v) ? v.flatMap((x) => (rec(x) ? [rec(x)!] : [])) : []);
const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function runAt(doc: Rec): string | undefined {
  return text(rec(doc.provenance)?.run_at) ?? text(doc.generated_at);
}

function resultOf(doc: Rec): "pass" | "fail" | "unreadable" {
  const status = text(rec(doc.result)?.status);
  return status === "pass" || status === "fail" ? status : "unreadable";
}

function findingsOf(doc: Rec): Array<Omit<FindingSpan, "first_seen" | "cleared">> {
  return list(doc.zones).flatMap((zone) => {
    const zone_id = text(zone.zone_id) ?? "";
    const of = (items: Rec[], kindOf: (f: Rec) => string, subjectOf: (f: Rec) => string) =>
      items.map((f) => ({
        zone_id,
        type: kindOf(f),
        subject: subjectOf(f),
        ...(text(f.requirement) ? { requirement: text(f.requirement)! } : {}),
        message: text(f.message) ?? (Array.isArray(f.reasons) ? f.reasons.join("; ") : kindOf(f)),
      }));
    return [
      ...of(
        list(zone.findings),
        (f) => `malicious ${text(f.kind) ?? "item"}`,
        (f) => text(f.subject) ?? "",
      ),
      ...of(
        list(rec(zone.script_inventory)?.findings),
        (f) => text(f.type) ?? "inventory",
        (f) => text(f.script_id) ?? text(f.authorized_url) ?? text(f.url) ?? "",
      ),
      ...of(
        list(rec(zone.payment_page_headers)?.findings),
        (f) => text(f.type) ?? "headers",
        (f) => `${text(f.url) ?? ""} ${text(f.header) ?? ""}`.trim(),
      ),
      ...of(
        list(rec(zone.alerting)?.findings),
        (f) => text(f.type) ?? "alerting",
        (f) => text(f.account_id) ?? "",
      ),
    ];
  });
}

const keyOf = (f: { zone_id: string; type: string; subject: string }) =>
  `${f.zone_id}\u0000${f.type}\u0000${f.subject}`;

export interface Window {
  since?: string;
  until?: string;
}

export function evidencePeriod(files: readonly EvidenceFile[], window: Window = {}): Period {
  const sorted = [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const runs: RunSummary[] = [];
  const tampered: Tampered[] = [];
  const open = new Map<string, FindingSpan>();
  const spans: FindingSpan[] = [];
  let before: { name: string; sha256: string } | undefined;
  for (const file of sorted) {
    const hash = sha256(file.text);
    let doc: Rec | undefined;
    try {
      doc = rec(JSON.parse(file.text));
    } catch {
      doc = undefined;
    }
    tampered.push(...chainProblems(file.name, doc, before));
    before = { name: file.name, sha256: hash };
    if (!doc) {
      runs.push({ file: file.name, sha256: hash, result: "unreadable", findings: 0 });
      continue;
    }
    const at = runAt(doc) ?? file.name;
    if (!within(at, window)) continue;
    const found = findingsOf(doc);
    runs.push({ file: file.name, sha256: hash, run_at: at, result: resultOf(doc), findings: found.length });
    const now = new Set(found.map(keyOf));
    for (const [key, span] of open) {
      if (now.has(key)) continue;
      span.cleared = at;
      open.delete(key);
    }
    for (const f of found) {
      if (open.has(keyOf(f))) continue;
      const span: FindingSpan = { ...f, first_seen: at };
      open.set(keyOf(f), span);
      spans.push(span);
    }
  }
  const asked = window.since !== undefined || window.until !== undefined ? { window: { ...window } } : {};
  return { ...asked, runs, findings: spans, gaps: gapsOf(runs, window), tampered };
}

function within(at: string, w: Window): boolean {
  const t = Date.parse(at);
  if (Number.isNaN(t)) return w.since === undefined && w.until === undefined;
  return (w.since === undefined || t >= Date.parse(w.since)) && (w.until === undefined || t <= Date.parse(w.until));
}

function chainProblems(
  name: string,
  doc: Rec | undefined,
  before: { name: string; sha256: string } | undefined,
): Tampered[] {
  if (!doc) return [{ file: name, why: "it is not a JSON record zoneform wrote" }];
  const previous = rec(rec(doc.evidence)?.previous);
  if (!before)
    return previous
      ? [{ file: name, why: `it names an earlier run (${text(previous.file)}) the directory lacks` }]
      : [];
  if (!previous) return [{ file: name, why: `it names no earlier run, but ${before.name} is before it` }];
  if (text(previous.file) !== before.name)
    return [{ file: name, why: `it names ${text(previous.file)} as the run before it, not ${before.name}` }];
  if (text(previous.sha256) !== before.sha256)
    return [{ file: before.name, why: `it was changed after ${name} recorded it (sha256 differs)` }];
  return [];
}

function gapsOf(runs: readonly RunSummary[], w: Window): Gap[] {
  const dated = [
    ...(w.since !== undefined ? [w.since] : []),
    ...runs.flatMap((r) => (r.run_at !== undefined && !Number.isNaN(Date.parse(r.run_at)) ? [r.run_at] : [])),
    ...(w.until !== undefined ? [w.until] : []),
  ];
  const out: Gap[] = [];
  for (let i = 1; i < dated.length; i++) {
    const from = dated[i - 1]!;
    const to = dated[i]!;
    const days = (Date.parse(to) - Date.parse(from)) / DAY;
    if (days > MAX_GAP_DAYS) out.push({ from, to, days: Math.floor(days) });
  }
  return out;
}
