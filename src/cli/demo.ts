#!/usr/bin/env node
// `npm run demo`: the whole job on the built-in emulator, with no account, network or credentials.
import { fileURLToPath } from "node:url";
import { dirname, join, relative } from "node:path";
import process from "node:process";
import pc from "picocolors";
import { NOW_ENV } from "../instant.js";
import { startEmulator, type RunningEmulator } from "../emulator/index.js";
import { useColor } from "./color.js";
import { processIO, type CliIO } from "./io.js";
import { main } from "./program.js";
import type { Env } from "../model/index.js";
import { pageShieldApiPath } from "../sections/index.js";

const ZONE = "5ababd603b22780302dd8d83498e5172"; // example.com in the emulator (md5 of the name)
const OWASP = "4814384a9e5d4991b9815dcfc25d2f1f";
const here = dirname(fileURLToPath(import.meta.url));
const CONFIG = join(here, "..", "..", "examples", "demo", "zoneform.yaml");

const DEMO_ENV = { DEMO_LOGS_TOKEN: "demo-logs-token-4f1c2b9e", CLOUDFLARE_API_TOKEN: "emulator-token" };

async function call(emu: RunningEmulator, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${emu.url}/${path}`, {
    method,
    headers: { authorization: "Bearer emulator-token", "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const env = (await res.json()) as { success: boolean; result: unknown; errors: unknown };
  if (!env.success) throw new Error(`seeding the demo: ${method} ${path}: ${JSON.stringify(env.errors)}`);
  return env.result;
}

async function makeDrift(emu: RunningEmulator): Promise<void> {
  await call(emu, "POST", pageShieldApiPath(ZONE, "policies"), {
    description: "Checkout allow-list",
    action: "allow",
    expression: 'http.request.uri.path contains "/checkout"',
    value: "script-src 'self' https://js.stripe.com https://cdn.old-analytics.example",
    enabled: true,
  });
  await call(emu, "POST", pageShieldApiPath(ZONE, "policies"), {
    description: "Legacy report-only",
    action: "log",
    expression: "true",
    value: "script-src 'self'",
    enabled: true,
  });
  await call(emu, "PUT", `zones/${ZONE}/rulesets/phases/http_request_firewall_managed/entrypoint`, {
    name: "zone entry point",
    rules: [
      {
        action: "skip",
        expression: 'ip.src in {192.0.2.0/24} and http.request.uri.path starts_with "/internal/"',
        description: "Office network: skip managed rules on /internal (made in the dashboard)",
        action_parameters: { ruleset: "current" },
        enabled: true,
      },
      {
        action: "execute",
        expression: "true",
        description: "OWASP core ruleset",
        action_parameters: {
          id: OWASP,
          version: "latest",
          overrides: {
            categories: ["paranoia-level-2", "paranoia-level-3", "paranoia-level-4"].map((category) => ({
              category,
              enabled: false,
            })),
          },
        },
        enabled: true,
      },
    ],
  });
  await call(emu, "POST", `zones/${ZONE}/logpush/jobs`, {
    name: "http-to-siem",
    dataset: "http_requests",
    destination_conf: `https://siem.example.com/ingest?header_Authorization=Bearer%20${DEMO_ENV.DEMO_LOGS_TOKEN}`,
    enabled: true,
    filter: JSON.stringify({ where: { and: [{ key: "ClientRequestHost", operator: "eq", value: "example.com" }] } }),
    output_options: { field_names: ["RayID", "EdgeStartTimestamp", "ClientIP"], timestamp_format: "rfc3339" },
  });
}

interface Step {
  caption: string;
  argv: string[];
  expect: number;
  digest?: RegExp;
}

function teeIO(io: CliIO): { io: CliIO; text: () => string } {
  let text = "";
  const stdout = {
    write: (t: string) => {
      text += t;
      io.stdout.write(t);
    },
    get isTTY() {
      return io.stdout.isTTY;
    },
    get columns() {
      return io.stdout.columns;
    },
  };
  return { io: { ...io, stdout }, text: () => text };
}

export async function runDemo(io: CliIO): Promise<number> {
  const c = pc.createColors(useColor(io, {}));
  // ZONEFORM_NOW sets the emulator's clock and the steps' alike (the audit counts from it).
  const emu = await startEmulator({ port: 0, ...(io.env[NOW_ENV] ? { now: io.env[NOW_ENV] } : {}) });
  const env: Env = { ...io.env, ...DEMO_ENV };
  delete env.CLOUDFLARE_EMAIL;
  delete env.CLOUDFLARE_API_KEY;
  const demoIO: CliIO = { ...io, env, prompt: undefined };
  const file = relative(io.cwd, CONFIG) || CONFIG;
  const api = ["--api-url", emu.url];
  try {
    await makeDrift(emu);
    io.stdout.write(
      `${c.bold("zoneform demo")}: a local Cloudflare API emulator is running at ${emu.url}.\n` +
        `Someone changed example.com by hand: Page Shield is off, the checkout CSP policy allows an old\n` +
        `analytics host, a report-only policy nobody wants is back, OWASP runs at paranoia 1, and the SIEM\n` +
        `Logpush job has an old filter. A skip rule was added in the dashboard; zoneform does not own it and\n` +
        `must keep it exactly. The desired state is ${file}.\n`,
    );
    const steps: Step[] = [
      {
        caption: "1. zoneform plan: what would change (nothing is written)",
        argv: ["plan", "-c", CONFIG, ...api],
        expect: 0,
        digest: /^Plan digest: (sha256:[0-9a-f]{64})$/m,
      },
      {
        caption: "2. zoneform apply --auto-approve: make the zone match, in order, make before break",
        argv: ["apply", "-c", CONFIG, "--auto-approve", ...api],
        expect: 0,
        digest: /^Applying plan (sha256:[0-9a-f]{64})$/m,
      },
      {
        caption: "3. zoneform plan --detailed-exitcode: converged, so no changes (exit 0)",
        argv: ["plan", "-c", CONFIG, "--detailed-exitcode", ...api],
        expect: 0,
      },
      {
        caption: "4. zoneform drift: what cron runs; exit 0 means the zone matches the file",
        argv: ["drift", "-c", CONFIG, ...api],
        expect: 0,
      },
      {
        caption: "5. zoneform audit: what Page Shield found on the pages (exit 2 = findings)",
        argv: ["audit", "--zone", ZONE, "--limit", "5", ...api],
        expect: 2,
      },
    ];
    const digests: string[] = [];
    for (const step of steps) {
      io.stdout.write(
        `\n${c.cyan(c.bold(`── ${step.caption}`))}\n${c.dim(
          `$ zoneform ${step.argv
            .filter((a) => !a.startsWith("http"))
            .join(" ")
            .replace(CONFIG, file)
            .replace(" --api-url", "")}`,
        )}\n\n`,
      );
      const tee = teeIO(demoIO);
      const code = await main(step.argv, tee.io);
      if (code !== step.expect) {
        io.stderr.write(`demo: step "${step.caption}" exited ${code}, expected ${step.expect}\n`);
        return 1;
      }
      if (step.digest) digests.push(step.digest.exec(tee.text())?.[1] ?? "none");
    }
    // The same zone, file and values: apply applies the very plan `plan` printed, by its digest.
    if (digests[0] !== digests[1]) {
      io.stderr.write(`demo: plan printed the digest ${digests[0]}, apply applied ${digests[1]}\n`);
      return 1;
    }
    const skip = (await call(emu, "GET", `zones/${ZONE}/rulesets/phases/http_request_firewall_managed/entrypoint`)) as {
      rules: Array<{ action: string }>;
    };
    const kept = skip.rules.some((r) => r.action === "skip");
    io.stdout.write(
      `\n${c.green(c.bold("Done."))} apply applied the plan whose digest plan printed (${digests[0]}). ` +
        `The dashboard's skip rule is ` +
        `${kept ? "still in place" : c.red("MISSING")}; the Logpush token in the job's destination ` +
        `(DEMO_LOGS_TOKEN) was never printed: the destination did not change, so no step showed it, and one ` +
        `that did would show (sensitive).\n` +
        // In the checkout, `npx node` is the Node of the `node` dev dependency (the README's "Install").
        `Try it yourself: npx node dist/cli/zoneform.js emulator   (then point --api-url or ` +
        `CLOUDFLARE_API_BASE_URL at it)\n`,
    );
    return kept ? 0 : 1;
  } finally {
    await emu.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await runDemo(processIO());
}
