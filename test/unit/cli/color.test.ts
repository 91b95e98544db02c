// The one colour decision: --no-color, NO_COLOR, FORCE_COLOR, TERM=dumb, and the terminal, in that order.
import { describe, expect, it } from "vitest";
import { colorEnabled, useColor } from "../../../src/cli/color.js";
import { memoryIO } from "../../../src/cli/io.js";
import { useColor as planningUseColor } from "../../../src/cli/planning.js";

describe("colorEnabled", () => {
  it("colours a terminal and not a pipe by default", () => {
    expect(colorEnabled({ isTTY: true, env: {} })).toBe(true);
    expect(colorEnabled({ isTTY: false, env: {} })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: { TERM: "xterm-256color" } })).toBe(true);
  });

  it("is off for TERM=dumb, even on a terminal", () => {
    expect(colorEnabled({ isTTY: true, env: { TERM: "dumb" } })).toBe(false);
  });

  it("is off for NO_COLOR (any non-empty value); an empty NO_COLOR is ignored", () => {
    expect(colorEnabled({ isTTY: true, env: { NO_COLOR: "1" } })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: { NO_COLOR: "0" } })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: { NO_COLOR: "" } })).toBe(true);
  });

  it("is on for FORCE_COLOR (any value but 0 or false) even when piped, and over TERM=dumb", () => {
    for (const v of ["1", "2", "3", "true", "yes"])
      expect(colorEnabled({ isTTY: false, env: { FORCE_COLOR: v } }), v).toBe(true);
    expect(colorEnabled({ isTTY: false, env: { FORCE_COLOR: "1", TERM: "dumb" } })).toBe(true);
    expect(colorEnabled({ isTTY: true, env: { FORCE_COLOR: "0" } })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: { FORCE_COLOR: "false" } })).toBe(false);
    expect(colorEnabled({ isTTY: false, env: { FORCE_COLOR: "" } })).toBe(false);
  });

  it("lets NO_COLOR win over FORCE_COLOR, and --no-color win over everything", () => {
    expect(colorEnabled({ isTTY: true, env: { FORCE_COLOR: "1", NO_COLOR: "1" } })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: { FORCE_COLOR: "1" }, flag: false })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: {}, flag: true })).toBe(true);
  });
});

describe("useColor", () => {
  it("decides for the output given (stdout by default) from the io's environment", () => {
    expect(useColor(memoryIO({ tty: true }).io, {})).toBe(true);
    expect(useColor(memoryIO({ tty: false, env: { FORCE_COLOR: "1" } }).io, {})).toBe(true);
    expect(useColor(memoryIO({ tty: true, env: { TERM: "dumb" } }).io, {})).toBe(false);
    const { io } = memoryIO({ tty: true });
    expect(useColor(io, { color: false }, io.stderr)).toBe(false);
  });

  it("is the helper planning re-exports", () => {
    expect(planningUseColor).toBe(useColor);
  });
});
