// `zoneform certificates --zone ID`: which custom hostnames use which certificate authority, flagging
// those still on the CA whose cross-signed chain was retired. A report: it exits 0 even when it flags.
import { Option, type Command } from "commander";
import { buildCertificateReport, renderCertificateReportText } from "../../certificates/report.js";
import { UsageError } from "../../errors.js";
import { addClientOptions, clientFromOptions, type ClientFlagValues } from "../client-options.js";
import { parseFormat } from "../planning.js";
import type { CommandContext } from "../program.js";

interface CertificatesOptions extends ClientFlagValues {
  zone?: string[];
  format?: string;
}

/** Custom hostname lists are paged at most 50 a page. */
const PAGE_SIZE = 50;
const ZONE_ID = /^[0-9a-f]{32}$/;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function register(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command("certificates")
    .description(
      "List the zones' custom hostnames with their certificate authority, SSL status and validation method, flagging those still on lets_encrypt (cross-signed chain retired). A report: exit 0 even when hostnames are flagged, 1 on error.",
    )
    .addOption(new Option("--zone <id>", "zone id (32 hex; repeatable)").argParser(collect))
    .option("--format <format>", "text | json", "text")
    .option("--verbose", "log every API call to stderr");
  addClientOptions(cmd);
  cmd.action(async (opts: CertificatesOptions) => {
    const { io } = ctx;
    const format = parseFormat(opts.format, ["text", "json"]);
    const zones = opts.zone ?? [];
    if (zones.length === 0) throw new UsageError("--zone <id> is required (repeat it for several zones)");
    const bad = zones.filter((z) => !ZONE_ID.test(z));
    if (bad.length > 0) throw new UsageError(`--zone ${bad.join(", ")}: a zone id is 32 lower-case hex characters`);
    const client = clientFromOptions(opts, io);
    try {
      const listed = await Promise.all(
        zones.map(async (zoneId) => ({
          zone_id: zoneId,
          hostnames: await client.listAll<Record<string, unknown>>(`zones/${zoneId}/custom_hostnames`, { perPage: PAGE_SIZE }),
        })),
      );
      const report = buildCertificateReport(listed);
      io.stdout.write(format === "json" ? `${JSON.stringify(report, null, 2)}\n` : renderCertificateReportText(report));
    } finally {
      await client.close();
    }
  });
}
