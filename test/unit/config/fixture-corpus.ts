// Reads the configuration fixture corpus: test/fixtures/config/{valid,invalid}/*.yaml. Header comments
// carry what a test needs: `# expect: LINE:COL /pointer message` (invalid files) and `# env: NAME=value`.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CONFIG_FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/config");

interface Expectation {
  line: number;
  column: number;
  pointer: string;
  message: string;
}

export interface Fixture {
  name: string;
  path: string;
  text: string;
  env: Record<string, string>;
  expect: Expectation[];
}

export function readFixtures(kind: "valid" | "invalid"): Fixture[] {
  const dir = path.join(CONFIG_FIXTURES, kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((name) => {
      const text = readFileSync(path.join(dir, name), "utf8");
      const env: Record<string, string> = {};
      const expect: Expectation[] = [];
      for (const line of text.split("\n")) {
        const e = /^# expect: (\d+):(\d+) (\S+) (.*)$/.exec(line);
        if (e) expect.push({ line: Number(e[1]), column: Number(e[2]), pointer: e[3]!, message: e[4]! });
        const v = /^# env: ([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
        if (v) env[v[1]!] = v[2]!;
      }
      return { name, path: path.join(dir, name), text, env, expect };
    });
}
