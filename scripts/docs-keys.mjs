// The key tables of docs/configuration.md, one region per section of the registry, generated from its
// schema fragment (src/sections/<folder>/schema.json): each key the fragment adds to a zone (`zone`)
// or under a zone's `logs` (`logs`), with its type and its schema description. A region:
//
//   <!-- keys:<section name> -->
//   | key | type | meaning |
//   …
//   <!-- /keys:<section name> -->
//
// `npm run generate` rewrites every region (`--check` only compares: exit 1 when one is stale); a
// section without one gets a `## <its path>` heading and its region after the last section's part,
// for its prose to follow. Run on the build (dist/sections/index.js holds the registry).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const CONFIG_DOC = "docs/configuration.md";

/** A schema's type as the reference writes it. */
function typeOf(schema, defs) {
  const s = schema.$ref ? (defs[schema.$ref.split("/").pop()] ?? {}) : schema;
  if (s.enum) return s.enum.map((v) => `\`${v}\``).join(" \\| ");
  if (s.const !== undefined) return `\`${s.const}\``;
  const t = Array.isArray(s.type) ? s.type.join(" or ") : s.type;
  return { object: "mapping", array: "list" }[t] ?? t ?? "see below";
}

function descriptionOf(schema, defs) {
  const s = schema.$ref ? (defs[schema.$ref.split("/").pop()] ?? {}) : schema;
  const text = schema.description ?? s.description ?? "";
  return text.replace(/\s+/g, " ").replaceAll("|", "\\|").trim();
}

/** The region's table of one section: `{name, fragment}`. */
export function keysTable({ name, fragment }) {
  const defs = fragment.$defs ?? {};
  const rows = [
    ...Object.entries(fragment.zone ?? {}).map(([k, v]) => [k, v]),
    ...Object.entries(fragment.logs ?? {}).map(([k, v]) => [`logs.${k}`, v]),
  ].map(([key, s]) => `| \`${key}\` | ${typeOf(s, defs)} | ${descriptionOf(s, defs)} |`);
  return [`<!-- keys:${name} -->`, "| key | type | meaning |", "|---|---|---|", ...rows, `<!-- /keys:${name} -->`];
}

const REGION = /^<!-- keys:([a-z0-9_]+) -->\n(?:[\s\S]*?\n)?<!-- \/keys:\1 -->$/gm;

/** The doc with every section's region regenerated, and a new one appended for a section with none. */
export function withKeyTables(text, sections) {
  const byName = new Map(sections.map((s) => [s.name, s]));
  const seen = new Set();
  let out = text.replace(REGION, (whole, name) => {
    const section = byName.get(name);
    if (!section) return whole;
    seen.add(name);
    return keysTable(section).join("\n");
  });
  for (const s of sections.filter((x) => !seen.has(x.name))) {
    const lastEnd = out.lastIndexOf("<!-- /keys:");
    const nextHeading = lastEnd === -1 ? -1 : out.indexOf("\n## ", lastEnd);
    const at = nextHeading === -1 ? out.length : nextHeading + 1;
    const block = [`## \`${s.path}\``, "", ...keysTable(s), "", ""].join("\n");
    out = out.slice(0, at) + block + out.slice(at);
  }
  return out;
}

/** The sections of the registry with their fragments, read from `root`. */
export async function registrySections(root = ROOT) {
  const { SECTIONS } = await import(pathToFileURL(join(root, "dist/sections/index.js")).href);
  return SECTIONS.map((s) => ({
    name: s.name,
    path: s.path,
    fragment: JSON.parse(readFileSync(join(root, "src/sections", s.name, "schema.json"), "utf8")),
  }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = join(ROOT, CONFIG_DOC);
  const text = readFileSync(file, "utf8");
  const next = withKeyTables(text, await registrySections());
  if (process.argv.includes("--check")) {
    if (next !== text) {
      console.error(`${CONFIG_DOC}: the key tables are stale; run npm run generate`);
      process.exit(1);
    }
  } else if (next !== text) writeFileSync(file, next);
}
