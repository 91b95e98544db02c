// Fault injection.
// Spec: docs/emulator.md, Fault injection.
import { createRng } from "./ids.js";

export interface FaultSpec {
  method?: string;
  /** A path pattern (pathPattern) matched against the path after `/client/v4/` (no query string). */
  path?: string;
  status?: number;
  code?: number;
  message?: string;
  retry_after?: number;
  delay_ms?: number;
  reset?: boolean;
  count?: number;
  probability?: number;
  seed?: number;
  after?: boolean;
}

export interface Fault extends FaultSpec {
  id: string;
  /** Times it has fired. */
  fired: number;
}

interface ActiveFault {
  fault: Fault;
  matches?: (path: string) => boolean;
  random: () => number;
}

/** The longest path pattern accepted. */
export const MAX_PATH_PATTERN_LENGTH = 512;

/** Characters of regular expressions a path pattern refuses, so a regex is never taken for plain text. */
const REGEX_ONLY = /[\\()[\]{}+?]/;

export function pathPatternProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_PATH_PATTERN_LENGTH) return `longer than ${MAX_PATH_PATTERN_LENGTH} characters`;
  const bad = REGEX_ONLY.exec(pattern);
  if (bad) return `${JSON.stringify(bad[0])} is not plain text: a path pattern is not a regular expression`;
  return undefined;
}

/**
 * A path pattern as a matcher: plain text found anywhere in the path; `^` at its start anchors it at the path's
 * start, `$` at its end at the path's end (both: the whole path); `*` stands for any run of characters; `|`
 * separates alternatives.
 */
export function pathPattern(pattern: string): (path: string) => boolean {
  const alternatives = pattern.split("|").map((alt) => {
    const start = alt.startsWith("^");
    const end = alt.length > (start ? 1 : 0) && alt.endsWith("$");
    const pieces = alt.slice(start ? 1 : 0, end ? -1 : undefined).split("*");
    return { start, end, pieces };
  });
  return (path) => alternatives.some((a) => matchPieces(path, a.pieces, a.start, a.end));
}

function matchPieces(path: string, pieces: string[], start: boolean, end: boolean): boolean {
  const first = pieces[0]!;
  if (pieces.length === 1) {
    if (start && end) return path === first;
    if (start) return path.startsWith(first);
    if (end) return path.endsWith(first);
    return path.includes(first);
  }
  const last = pieces[pieces.length - 1]!;
  let from = 0;
  if (start) {
    if (!path.startsWith(first)) return false;
    from = first.length;
  } else {
    const at = path.indexOf(first);
    if (at < 0) return false;
    from = at + first.length;
  }
  for (const piece of pieces.slice(1, -1)) {
    const at = path.indexOf(piece, from);
    if (at < 0) return false;
    from = at + piece.length;
  }
  if (end) return path.length - last.length >= from && path.endsWith(last);
  return path.indexOf(last, from) >= 0;
}

export class FaultStore {
  private faults: ActiveFault[] = [];
  private nextId = 1;

  add(spec: FaultSpec): Fault {
    const fault: Fault = { ...spec, id: `fault-${this.nextId++}`, fired: 0 };
    this.faults.push({
      fault,
      matches: spec.path === undefined ? undefined : pathPattern(spec.path),
      random: spec.seed === undefined ? Math.random : createRng(spec.seed),
    });
    return fault;
  }

  clear(): void {
    this.faults = [];
  }

  list(): Fault[] {
    return this.faults.map((f) => f.fault);
  }

  take(method: string, path: string, phase: "before" | "after"): Fault | undefined {
    for (const active of this.faults) {
      const f = active.fault;
      if (Boolean(f.after) !== (phase === "after")) continue;
      if (f.count !== undefined && f.fired >= f.count) continue;
      if (f.method && f.method.toUpperCase() !== method) continue;
      if (active.matches && !active.matches(path)) continue;
      if (f.probability !== undefined && active.random() >= f.probability) continue;
      f.fired++;
      return f;
    }
    return undefined;
  }
}
