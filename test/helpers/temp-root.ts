// vitest's global set-up: every temporary file of a test run (tests', the CLI's and the emulator's
// child processes', all through os.tmpdir()) goes under one directory, removed when the run ends.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default async function setup(): Promise<() => Promise<void>> {
  const root = await mkdtemp(join(tmpdir(), "zoneform-tests-"));
  // os.tmpdir() reads these on every call; the test workers and their children inherit them.
  process.env.TMPDIR = process.env.TMP = process.env.TEMP = root;
  return () => rm(root, { recursive: true, force: true });
}
