// Where a report comes from, in audit's formats for people (text, Markdown) and as CSV rows: the zoneform
// version, each configuration file with its sha256 and its git commit and clean-ness, the run's instant,
// the zones and pages in scope. Paths and page patterns are the file's text: printable in text and CSV,
// through the one Markdown encoder in Markdown.
import { mdCode, mdText } from "../safe-markdown.js";
import { printable } from "../safe-text.js";
import type { AuditProvenance, ConfigFileProvenance, GitProvenance, ZoneScope } from "./renderer-contract.js";

/** A file's git state in words: `git commit abc… (clean)`, `not in a git checkout`, … */
export function describeGit(git: GitProvenance | null): string {
  if (git === null) return "not in a git checkout";
  if ("error" in git) return `git state unknown (${printable(git.error)})`;
  const state = git.clean ? "clean: the file is the commit's" : "not clean: the file differs from the commit's";
  return git.commit === null
    ? `in a git checkout without a commit yet (${state})`
    : `git commit ${git.commit} (${state})`;
}

/** The git state's one word for a table cell or a CSV status. */
export function gitWord(git: GitProvenance | null): string {
  if (git === null) return "not in a git checkout";
  if ("error" in git) return "unknown";
  return git.clean ? "clean" : "modified";
}

function describeFile(f: ConfigFileProvenance): string {
  return `${printable(f.path)}: sha256 ${f.sha256}, ${describeGit(f.git)}`;
}

/** A zone and its pages in scope, in words. */
function describeScope(z: ZoneScope): string {
  const name = z.name !== undefined ? ` (${z.name})` : "";
  const parts = [
    ...(z.pages?.length ? [`payment pages ${z.pages.join(", ")}`] : []),
    ...(z.header_urls?.length ? [`headers fetched from ${z.header_urls.join(", ")}`] : []),
  ];
  return printable(`zone ${z.zone_id}${name}${parts.length ? `: ${parts.join("; ")}` : ""}`);
}

const NO_FILE = "none (no -c, and no ./zoneform.yaml)";

export function provenanceText(p: AuditProvenance): string {
  const lines = [
    `  zoneform ${printable(p.zoneform_version)}, run at ${p.run_at}`,
    ...(p.files.length === 0
      ? [`  configuration: ${NO_FILE}`]
      : p.files.map((f) => `  configuration ${describeFile(f)}`)),
    ...p.zones.map((z) => `  ${describeScope(z)}`),
  ];
  return `${lines.join("\n")}\n`;
}

export function provenanceMarkdown(p: AuditProvenance): string {
  const file = (f: ConfigFileProvenance) => {
    const git = f.git !== null && !("error" in f.git) && f.git.commit !== null ? f.git : undefined;
    const clean = git?.clean
      ? "clean (the file is the commit's)"
      : "**not clean** (the file differs from the commit's)";
    const state = git ? `git commit ${mdCode(git.commit!)}, ${clean}` : mdText(describeGit(f.git));
    return `- Configuration: ${mdCode(f.path)}, sha256 ${mdCode(f.sha256)}, ${state}`;
  };
  const zone = (z: ZoneScope) =>
    `- Zone ${mdCode(z.zone_id)}${z.name !== undefined ? ` (${mdText(z.name)})` : ""}` +
    `${z.pages?.length ? `: payment pages ${z.pages.map((x) => mdCode(x)).join(", ")}` : ""}` +
    `${z.header_urls?.length ? `; headers fetched from ${z.header_urls.map((x) => mdCode(x)).join(", ")}` : ""}`;
  const lines = [
    "## Provenance",
    "",
    `- ${mdText(`zoneform ${p.zoneform_version}, run at ${p.run_at}`)}`,
    ...(p.files.length === 0 ? [`- Configuration: ${mdText(NO_FILE)}`] : p.files.map(file)),
    ...p.zones.map(zone),
    "",
  ];
  return `${lines.join("\n")}\n`;
}

/** The CSV cells of the provenance rows (kind `provenance`), before any finding. */
export function provenanceCsvRows(p: AuditProvenance): Array<Record<string, string>> {
  return [
    { finding: "zoneform_version", subject: p.zoneform_version },
    { finding: "run_at", subject: p.run_at },
    ...p.files.map((f) => ({
      finding: "config_file",
      subject: f.path,
      seen_hash: f.sha256,
      id: f.git !== null && !("error" in f.git) ? (f.git.commit ?? "") : "",
      status: gitWord(f.git),
      reasons: `sha256 ${f.sha256}; ${describeGit(f.git)}`,
    })),
    ...p.zones.map((z) => ({
      zone_id: z.zone_id,
      finding: "zone_in_scope",
      subject: z.name ?? "",
      reasons: describeScope(z),
    })),
  ];
}
