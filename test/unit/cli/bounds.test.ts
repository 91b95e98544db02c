// The flags that bound a run: --max-wait, --deadline, --max-body-size, --max-read-bytes and their variables.
import { describe, expect, it } from "vitest";
import { boundsFromOptions, parseDuration, parseSize } from "../../../src/cli/bounds.js";
import { formatWait } from "../../../src/cloudflare/rate-limiter.js";
import { UsageError } from "../../../src/errors.js";

describe("bounds", () => {
  it("defaults: waits up to 5 minutes, no deadline, bodies up to 64 MiB, 512 MiB of answers in all", () => {
    expect(boundsFromOptions({}, {}, 0)).toEqual({
      maxWaitMs: 300_000,
      maxBodyBytes: 64 * 1024 * 1024,
      maxReadBytes: 512 * 1024 * 1024,
    });
  });

  it("the flag wins over the variable; the deadline counts from the start of the process", () => {
    const env = {
      ZONEFORM_MAX_WAIT: "2m",
      ZONEFORM_DEADLINE: "10m",
      ZONEFORM_MAX_BODY_SIZE: "1MiB",
      ZONEFORM_MAX_READ_BYTES: "1GiB",
    };
    expect(boundsFromOptions({}, env, 1500)).toEqual({
      maxWaitMs: 120_000,
      deadlineMs: 600_000 - 1500,
      maxBodyBytes: 1024 * 1024,
      maxReadBytes: 1024 ** 3,
    });
    expect(
      boundsFromOptions({ maxWait: "90s", deadline: "1h30m", maxBodySize: "512KiB", maxReadBytes: "2GiB" }, env, 0),
    ).toEqual({
      maxWaitMs: 90_000,
      deadlineMs: 5_400_000,
      maxBodyBytes: 512 * 1024,
      maxReadBytes: 2 * 1024 ** 3,
    });
    // Already past: nothing may be sent.
    expect(boundsFromOptions({ deadline: "1s" }, {}, 5000).deadlineMs).toBe(0);
  });

  it("durations need a unit and stay between 1 s and 7 days; sizes between 1 KiB and 4 GiB", () => {
    expect(() => parseDuration("500ms", "--deadline")).toThrow(UsageError);
    expect(() => parseDuration("10", "--deadline")).toThrow(
      '--deadline must be a duration with its unit, from 1s to 7 days (90s, 5m, 1h30m), got "10"',
    );
    expect(() => parseDuration("8d", "--max-wait")).toThrow(UsageError);
    expect(() => parseDuration("200h", "ZONEFORM_MAX_WAIT")).toThrow(/^ZONEFORM_MAX_WAIT must be/);
    expect(parseDuration("1h", "--deadline")).toBe(3_600_000);
    expect(parseSize("67108864", "--max-body-size")).toBe(64 * 1024 * 1024);
    expect(parseSize("10MB", "--max-body-size")).toBe(10_000_000);
    expect(() => parseSize("100", "--max-body-size")).toThrow(UsageError);
    expect(() => parseSize("5GiB", "--max-body-size")).toThrow(/from 1KiB to 4GiB/);
    expect(() => parseSize("64 furlongs", "--max-body-size")).toThrow(UsageError);
  });

  it("waits are named the way people say them", () => {
    expect([formatWait(41_000), formatWait(300_000), formatWait(86_400_000), formatWait(5_400_000)]).toEqual([
      "41s",
      "5m",
      "24h",
      "1h 30m",
    ]);
  });
});
