// Files the user names are written whole, never over an existing file without --force.
import { mkdtemp, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RuntimeError, UsageError } from "../../src/errors.js";
import { refuseExisting, writeFileSafely } from "../../src/write-file.js";

const dir = () => mkdtemp(join(tmpdir(), "zoneform-write-"));

describe("writeFileSafely", () => {
  it("writes a new file with the mode asked for and leaves no temporary file", async () => {
    const d = await dir();
    await writeFileSafely(join(d, "out.yaml"), "hello\n", { mode: 0o600 });
    expect(await readFile(join(d, "out.yaml"), "utf8")).toBe("hello\n");
    expect((await stat(join(d, "out.yaml"))).mode & 0o777).toBe(0o600);
    expect(await readdir(d)).toEqual(["out.yaml"]);
  });

  it(
    "refuses an existing file (or a symlink, even a dangling one) without force, exit 3, leaving it " + "as it was",
    async () => {
      const d = await dir();
      const path = join(d, "out.yaml");
      await writeFile(path, "mine");
      const err = await writeFileSafely(path, "new", { label: "--out out.yaml" }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toBe("--out out.yaml: the file exists; pass --force to overwrite it");
      expect(await readFile(path, "utf8")).toBe("mine");
      await symlink(join(d, "nowhere"), join(d, "link.yaml"));
      await expect(writeFileSafely(join(d, "link.yaml"), "new")).rejects.toThrow(/the file exists; pass --force/);
      expect((await readdir(d)).sort()).toEqual(["link.yaml", "out.yaml"]);
    },
  );

  it("replaces an existing file with force, not keeping its mode", async () => {
    const d = await dir();
    const path = join(d, "plan.json");
    await writeFile(path, "old", { mode: 0o644 });
    await writeFileSafely(path, "new", { force: true, mode: 0o600 });
    expect(await readFile(path, "utf8")).toBe("new");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(d)).toEqual(["plan.json"]);
  });

  it("reports a file that cannot be written as a runtime error naming it", async () => {
    const d = await dir();
    await expect(
      writeFileSafely(join(d, "missing", "out.yaml"), "x", { label: "--write missing/out.yaml" }),
    ).rejects.toThrow(RuntimeError);
    await expect(
      writeFileSafely(join(d, "missing", "out.yaml"), "x", { label: "--write missing/out.yaml" }),
    ).rejects.toThrow(/^--write missing\/out\.yaml: cannot write the file: ENOENT/);
  });
});

describe("refuseExisting", () => {
  it("refuses an existing path unless forced, before any work", async () => {
    const d = await dir();
    expect(() => refuseExisting(join(d, "new.json"))).not.toThrow();
    await writeFile(join(d, "old.json"), "x");
    expect(() => refuseExisting(join(d, "old.json"), { label: "--out old.json" })).toThrow(
      "--out old.json: the file exists; pass --force to overwrite it",
    );
    expect(() => refuseExisting(join(d, "old.json"), { force: true })).not.toThrow();
  });
});
