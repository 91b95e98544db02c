// Whether a Page Shield policy's expression selects a page, judged from the page's URL alone: true,
// false, or undefined when it cannot be told (unknown spreads as in three-valued logic). Pure, bounded;
// what cannot be parsed is unknown, never false. Spec: docs/commands/audit.md, "Payment page headers".

export type Tri = boolean | undefined;

const MAX_EXPRESSION_CHARS = 8192;
const MAX_DEPTH = 64;

type Value = string | number | boolean | Value[] | undefined;

interface Token {
  kind: "word" | "string" | "number" | "symbol";
  text: string;
}

const SYMBOLS = ["==", "!=", ">=", "<=", "&&", "||", "^^", "(", ")", "{", "}", ",", ">", "<", "!", "~"];

function tokenize(text: string): Token[] | undefined {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const raw = /^r(#*)"/.exec(text.slice(i, i + 260));
    if (raw) {
      const close = `"${raw[1]}`;
      const end = text.indexOf(close, i + raw[0].length);
      if (end < 0) return undefined;
      out.push({ kind: "string", text: text.slice(i + raw[0].length, end) });
      i = end + close.length;
      continue;
    }
    if (ch === '"') {
      let s = "";
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\") {
          j++;
          if (j >= text.length) return undefined;
        }
        s += text[j];
      }
      if (j >= text.length) return undefined;
      out.push({ kind: "string", text: s });
      i = j + 1;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(text.slice(i, i + 256));
    if (word) {
      out.push({ kind: "word", text: word[0] });
      i += word[0].length;
      continue;
    }
    const num = /^\d+(\.\d+)?/.exec(text.slice(i, i + 64));
    if (num) {
      out.push({ kind: "number", text: num[0] });
      i += num[0].length;
      continue;
    }
    const sym = SYMBOLS.find((s) => text.startsWith(s, i));
    if (!sym) return undefined;
    out.push({ kind: "symbol", text: sym });
    i += sym.length;
  }
  return out;
}

function urlFields(pageUrl: string): ReadonlyMap<string, Value> {
  const u = new URL(pageUrl);
  const path = u.pathname;
  const query = u.search.replace(/^\?/, "");
  const uri = `${path}${u.search}`;
  const last = path.slice(path.lastIndexOf("/") + 1);
  const dot = last.lastIndexOf(".");
  const fields: Array<[string, Value]> = [
    ["http.host", u.hostname.toLowerCase()],
    ["http.request.uri.path", path],
    ["http.request.uri.query", query],
    ["http.request.uri", uri],
    ["http.request.full_uri", `${u.protocol}//${u.host}${uri}`],
    ["http.request.uri.path.extension", dot > 0 ? last.slice(dot + 1).toLowerCase() : ""],
    ["http.request.method", "GET"],
    ["ssl", u.protocol === "https:"],
  ];
  const map = new Map<string, Value>(fields);
  for (const [k, v] of fields) if (k.startsWith("http.request")) map.set(`raw.${k}`, v);
  return map;
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly fields: ReadonlyMap<string, Value>,
  ) {}

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private isOp(...names: string[]): boolean {
    const t = this.peek();
    return t !== undefined && (t.kind === "word" || t.kind === "symbol") && names.includes(t.text);
  }

  private expect(text: string): void {
    if (this.peek()?.text !== text) throw new Error(`expected ${text}`);
    this.pos++;
  }

  parse(): Tri {
    const v = this.or();
    if (this.pos !== this.tokens.length) throw new Error("trailing tokens");
    return v;
  }

  private nest<T>(f: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new Error("too deep");
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  private or(): Tri {
    let v = this.xor();
    while (this.isOp("or", "||")) {
      this.pos++;
      const r = this.xor();
      v = v === true || r === true ? true : v === false && r === false ? false : undefined;
    }
    return v;
  }

  private xor(): Tri {
    let v = this.and();
    while (this.isOp("xor", "^^")) {
      this.pos++;
      const r = this.and();
      v = v === undefined || r === undefined ? undefined : v !== r;
    }
    return v;
  }

  private and(): Tri {
    let v = this.not();
    while (this.isOp("and", "&&")) {
      this.pos++;
      const r = this.not();
      v = v === false || r === false ? false : v === true && r === true ? true : undefined;
    }
    return v;
  }

  private not(): Tri {
    if (this.isOp("not", "!")) {
      this.pos++;
      const v = this.nest(() => this.not());
      return v === undefined ? undefined : !v;
    }
    return this.comparison();
  }

  private comparison(): Tri {
    if (this.peek()?.text === "(" && this.peek()?.kind === "symbol") {
      this.pos++;
      const v = this.nest(() => this.or());
      this.expect(")");
      return v;
    }
    const left = this.value();
    const t = this.peek();
    if (t && (t.kind === "word" || t.kind === "symbol")) {
      const op = t.text;
      if (op === "in") {
        this.pos++;
        const set = this.set();
        if (left === undefined || set === undefined) return undefined;
        return set.some((s) => s === left);
      }
      if (["eq", "==", "ne", "!=", "contains", "lt", "<", "le", "<=", "gt", ">", "ge", ">="].includes(op)) {
        this.pos++;
        const right = this.value();
        return compare(op, left, right);
      }
      if (["matches", "~", "wildcard", "strict"].includes(op)) {
        // Regular expressions and wildcards: not judged (another engine's syntax); the operand is skipped.
        this.pos++;
        if (op === "strict") this.expect("wildcard");
        this.value();
        return undefined;
      }
    }
    return typeof left === "boolean" ? left : undefined;
  }

  private set(): Value[] | undefined {
    this.expect("{");
    const items: Value[] = [];
    let known = true;
    while (this.peek() && this.peek()!.text !== "}") {
      const t = this.tokens[this.pos++]!;
      if (t.kind === "string") items.push(t.text);
      else if (t.kind === "number") items.push(Number(t.text));
      else known = false;
    }
    this.expect("}");
    return known ? items : undefined;
  }

  private value(): Value {
    const t = this.tokens[this.pos++];
    if (!t) throw new Error("expected a value");
    if (t.kind === "string") return t.text;
    if (t.kind === "number") return Number(t.text);
    if (t.kind !== "word") throw new Error(`unexpected ${t.text}`);
    if (this.peek()?.text === "(" && this.peek()?.kind === "symbol") return this.nest(() => this.call(t.text));
    if (t.text === "true") return true;
    if (t.text === "false") return false;
    return this.fields.get(t.text);
  }

  private call(name: string): Value {
    this.expect("(");
    const args: Value[] = [];
    while (this.peek() && this.peek()!.text !== ")") {
      args.push(this.value());
      if (this.peek()?.text === ",") this.pos++;
    }
    this.expect(")");
    const [a, b] = args;
    const str = (v: Value) => (typeof v === "string" ? v : undefined);
    switch (name) {
      case "lower":
        return str(a)?.toLowerCase();
      case "upper":
        return str(a)?.toUpperCase();
      case "len":
        return str(a)?.length;
      case "starts_with":
        return str(a) === undefined || str(b) === undefined ? undefined : str(a)!.startsWith(str(b)!);
      case "ends_with":
        return str(a) === undefined || str(b) === undefined ? undefined : str(a)!.endsWith(str(b)!);
      case "concat":
        return args.every((x) => typeof x === "string") ? (args as string[]).join("") : undefined;
      default:
        return undefined;
    }
  }
}

function compare(op: string, a: Value, b: Value): Tri {
  if (a === undefined || b === undefined || Array.isArray(a) || Array.isArray(b)) return undefined;
  switch (op) {
    case "eq":
    case "==":
      return a === b;
    case "ne":
    case "!=":
      return a !== b;
    case "contains":
      return typeof a === "string" && typeof b === "string" ? a.includes(b) : undefined;
    default: {
      if (typeof a !== "number" || typeof b !== "number") return undefined;
      if (op === "lt" || op === "<") return a < b;
      if (op === "le" || op === "<=") return a <= b;
      if (op === "gt" || op === ">") return a > b;
      return a >= b;
    }
  }
}

export function expressionSelects(expression: string, pageUrl: string): Tri {
  if (expression.length > MAX_EXPRESSION_CHARS) return undefined;
  const tokens = tokenize(expression);
  if (!tokens || tokens.length === 0) return undefined;
  let fields: ReadonlyMap<string, Value>;
  try {
    fields = urlFields(pageUrl);
  } catch {
    return undefined;
  }
  try {
    return new Parser(tokens, fields).parse();
  } catch {
    return undefined;
  }
}
