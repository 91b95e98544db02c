// Where a report comes from, in text, Markdown and CSV rows; paths and page patterns are escaped per
// format. Spec: docs/commands/audit.md, "The result and the provenance".
import { mdCode, mdText } from "../safe-markdown.js";
import { printable } from "../safe-text.js";
import type { AuditProvenance, ConfigFileProvenance, GitProvenance, ZoneScope } from "./renderer-contract.js";

export function describeGit(git: GitProvenance | null): string {
  if (git === null) return "not in a git checkout";
  if ("error" in git) return `git state unknown (${printable(git.error)})`;
  const state = git.clean ? "clean: the file is the commit's" : "not clean: the file differs from the commit's";
  return git.commit === null
    ? `in a git checkout without a commit yet (${state})`
    : `git commit ${git.commit} (${state})`;
}

export function gitWord(git: GitProvenance | null): string {
  if (git === null) return "not in a git checkout";
  if ("error" in git) return "unknown";
  return git.clean ? "clean" : "modified";
}

function describeFile(f: ConfigFileProvenance): string {
  return `${printable(f.path)}: sha256 ${f.sha256}, ${describeGit(f.git)}`;
}

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
