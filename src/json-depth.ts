// JSON read with a bound on how deeply it nests.

export const MAX_PLAN_JSON_DEPTH = 64;

class JsonTooDeepError extends Error {
  constructor(
    readonly maxDepth: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(`it nests deeper than ${maxDepth} levels (line ${line}, column ${column})`);
    this.name = "JsonTooDeepError";
  }
}

export function jsonShape(
  text: string,
  maxDepth: number,
): { containers: number; tooDeepAt?: { line: number; column: number } } {
  let depth = 0;
  let containers = 0;
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: jump to its closing quote (indexOf is fast on long strings), past any escaped one.
      let end = text.indexOf('"', i + 1);
      while (end > 0 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) break;
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      containers++;
      if (++depth > maxDepth) return { containers, tooDeepAt: { line, column: i - lineStart + 1 } };
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { containers };
}

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let n = 0;
  while (text.charCodeAt(at - 1 - n) === 0x5c) n++;
  return n % 2 === 1;
}

/** Where `text` first nests past `maxDepth` arrays and objects (outside strings), or undefined. */
export function tooDeepAt(text: string, maxDepth: number): { line: number; column: number } | undefined {
  return jsonShape(text, maxDepth).tooDeepAt;
}

export function parseJsonWithin(text: string, maxDepth: number): unknown {
  const at = tooDeepAt(text, maxDepth);
  if (at) throw new JsonTooDeepError(maxDepth, at.line, at.column);
  return JSON.parse(text);
}

export function jsonProblem(err: unknown): string {
  if (err instanceof JsonTooDeepError) {
    return (
      `nests deeper than ${err.maxDepth} levels (line ${err.line}, column ${err.column}), far deeper than ` +
      "anything zoneform writes; it was not read any further"
    );
  }
  // V8 quotes the text around the fault: never shown, since a file read by mistake may hold secrets.
  const at = /\(line (\d+) column (\d+)\)/.exec((err as Error).message);
  return at ? `is not JSON (it stops parsing at line ${at[1]}, column ${at[2]})` : "is not JSON";
}
