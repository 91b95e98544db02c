// What every stage of config checking reports.
import type { ConfigProblem } from "../errors.js";
import { clip } from "../redact.js";
import type { Finding } from "../sections/index.js";

export { childPointer, type Finding } from "../sections/index.js";

export interface SourcePosition {
  line: number;
  column: number;
}

export type Locator = (pointer: string, at?: "key" | "value") => SourcePosition;

export function toProblem(finding: Finding, file: string, locate: Locator): ConfigProblem {
  const pos = locate(finding.pointer, finding.at);
  return {
    file,
    line: pos.line,
    column: pos.column,
    pointer: finding.pointer,
    message: finding.message,
    severity: finding.severity ?? "error",
  };
}

export function isError(p: { severity?: "error" | "warning" }): boolean {
  return p.severity !== "warning";
}

export function lastSegment(pointer: string): string {
  return pointer
    .slice(pointer.lastIndexOf("/") + 1)
    .replace(/~1/g, "/")
    .replace(/~0/g, "~");
}

/** A short, quoted rendering of a value for "(got …)". */
export function describeValue(value: unknown, redact: (text: string) => string = (t) => t): string {
  if (value === null || value === undefined) return "nothing";
  if (typeof value === "string") return `'${clip(redact(value), 38)}'`;
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return String(value);
}
