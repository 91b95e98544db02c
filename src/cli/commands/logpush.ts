// `zoneform logpush challenge`: asks Cloudflare to write an ownership token into a storage destination (S3, Google
// Cloud Storage, Azure Blob Storage) and says where it was written, so the user can put it in an environment
// variable and reference it as the job's ownership_challenge.
// Spec: docs/commands/logpush.md.
import type { Command } from "commander";
import { executeOne } from "../../engine/index.js";
import { EnvSecrets, interpolateEnv } from "../../secrets/index.js";
import { RuntimeError, UsageError } from "../../errors.js";
import { type Redactor, redactDestination } from "../../redact.js";
import { printable } from "../../safe-text.js";
import { destinationBucket, destinationScheme, needsOwnershipChallenge, zonePath } from "../../sections/index.js";
import { addReadCommandOptions, clientFromOptions, type ClientFlagValues } from "../client-options.js";
import type { CommandContext } from "../command.js";
import { guidedRun } from "../signals.js";
import { parseZoneRefs, resolveZoneRef } from "../zone-ref.js";
import type { Env } from "../../model/index.js";
import { type CommandTable, commandFromTable } from "../option-table.js";

interface ChallengeOptions extends ClientFlagValues {
  zone?: string[];
  account?: string;
  destination: string;
}

interface OwnershipResult {
  filename?: string;
  message?: string;
  valid?: boolean;
}

const CHALLENGE: CommandTable = {
  name: "challenge",
  description:
    "Request an ownership challenge for a storage destination (s3, gs, azure): Cloudflare writes a token " +
    "into a file in the bucket; put it in an env var and set ownership_challenge: ${env:NAME} on the job.",
  options: [
    {
      flags: "--destination <url>",
      description: "the job's destination_conf; ${env:NAME} references are read from the environment",
      mandatory: true,
    },
    { flags: "--account <id>", description: "for a job of this account (accounts: in the file) instead of a zone's" },
  ],
};

export function register(program: Command, ctx: CommandContext): void {
  const logpush = program.command("logpush").description("Logpush helpers.");
  const challenge = commandFromTable(logpush, CHALLENGE);
  addReadCommandOptions(challenge, { single: true });
  challenge.action((opts) => runChallenge(opts, ctx));
}

async function runChallenge(opts: ChallengeOptions, ctx: CommandContext): Promise<void> {
  const { io } = ctx;
  const account = opts.account?.trim().toLowerCase();
  if (account !== undefined && !/^[0-9a-f]{32}$/.test(account))
    throw new UsageError(`--account ${opts.account}: expected an account id, 32 lower-case hex characters`);
  if (account !== undefined && opts.zone?.length)
    throw new UsageError("logpush challenge takes --zone or --account, not both: a challenge is for one job");
  const [zoneRef] =
    account === undefined
      ? parseZoneRefs(opts.zone, "logpush challenge", { single: "a challenge is for one zone's job" })
      : [];
  const { destination, redactor } = resolveDestination(opts.destination, io.env);
  const shown = redactor.redact(redactDestination(destination));
  if (!needsOwnershipChallenge(destination)) {
    const scheme = destinationScheme(destination) || "this";
    throw new UsageError(`${scheme} destinations need no ownership challenge: only s3, gs and azure do (${shown})`);
  }
  const client = clientFromOptions(opts, io, redactor);
  // A signal stops it at once before the POST, and stops sending once it is sent (signals.ts).
  await guidedRun(ctx, async (_guard, write) => {
    // A zone's jobs are under zones/{id}/logpush, an account's under accounts/{id}/logpush.
    const unit = account ?? (await resolveZoneRef(client, zoneRef!));
    const base = account !== undefined ? `accounts/${account}` : zonePath(unit);
    const label = account !== undefined ? `account ${account}` : unit;
    // Made and reported as apply makes its changes (exit 1 nothing written, 4 may have been).
    const [answer] = await write(client, () =>
      executeOne(client, label, {
        kind: "create",
        resource: "logpush_ownership_challenge",
        zone_id: unit,
        identity: shown,
        fields: [],
        operations: [{ method: "POST", path: `${base}/logpush/ownership`, body: { destination_conf: destination } }],
      }),
    );
    const res = answer as OwnershipResult | null;
    if (!res || res.valid === false || !res.filename) {
      throw new RuntimeError(
        `Cloudflare could not write an ownership token to ` +
          `${shown}${res?.message ? `: ${redactor.redact(res.message)}` : ""}`,
      );
    }
    const bucket = printable(destinationBucket(destination));
    const filename = printable(res.filename);
    io.stdout.write(`filename: ${filename}\n`);
    if (res.message) io.stdout.write(`message: ${printable(redactor.redact(res.message))}\n`);
    io.stdout.write(
      `The token was written to ${filename} in ${bucket}; put it in an env var and reference it as ` +
        `ownership_challenge: \${env:NAME}\n` +
        `For example: export LOGPUSH_CHALLENGE='<the content of ${filename}>' and, on the job:\n` +
        "  ownership_challenge: ${env:LOGPUSH_CHALLENGE}\n",
    );
  }).finally(() => client.close());
}

function resolveDestination(raw: string, env: Env): { destination: string; redactor: Redactor } {
  const result = interpolateEnv(raw, env);
  const problems = result.findings.filter((f) => f.severity !== "warning");
  if (problems.length > 0) throw new UsageError(`--destination: ${problems.map((p) => p.message).join("; ")}`);
  return { destination: String(result.value), redactor: new EnvSecrets(env, result.names).redactor() };
}
