// `npm run demo` end to end: the drifted demo zone converges, the second plan is clean, the skip rule
// made in the dashboard survives, and the demo's secret is never printed.
import { describe, expect, it } from "vitest";
import { runDemo } from "../../src/cli/demo.js";
import { memoryIO } from "../../src/cli/io.js";

describe("npm run demo", () => {
  it("runs plan, apply, plan, drift and audit on the emulator and exits 0", async () => {
    const { io, stdout, stderr } = memoryIO({ env: {} });
    const code = await runDemo(io);
    expect(code, stderr()).toBe(0);
    const out = stdout();
    for (const caption of [
      "1. zoneform plan",
      "2. zoneform apply",
      "3. zoneform plan --detailed-exitcode",
      "4. zoneform drift",
      "5. zoneform audit",
    ]) {
      expect(out).toContain(caption);
    }
    expect(out).toMatch(/Plan: \d+ to create, \d+ to update, 0 to replace, 1 to delete\./);
    expect(out).toContain("No changes. 1 zone matches the configuration.");
    expect(out).toContain("No drift");
    expect(out).toContain("skip rule is still in place");
    expect(out + stderr()).not.toContain("demo-logs-token-4f1c2b9e");
  });
});
