// `audit --format html` read in a real browser (issue 46): Debian's Chromium (/usr/bin/chromium, which
// .ci/run installs), driven by playwright-core (never a browser download), launched once for the file.
// The report comes from the CLI against the emulator and a page server of this test, with hostile text
// everywhere it can come from: script URLs Page Shield saw, a justification and an owner in the file, a
// header value a page sent, an alert policy's name. The browser shows each as text and creates no
// element of it, no script runs, and no request leaves the page; it reads the summary first, the zone's
// tables, and prints to PDF with the long URLs wrapped.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../src/cli/command.js";
import { ACCOUNT, runCli, TEST_NOW, TestEmulator, tempDir, zoneId } from "../helpers/cli.js";

const CHROMIUM = "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
/** Outside CI a machine without Chromium skips this file; CI installs it (.ci/run), so there it must run. */
const RUN = HAVE_CHROMIUM || Boolean(process.env.CI);
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const emu = TestEmulator.perFile();
const NAME = "pay.example";
const ZID = zoneId(NAME);
const HOSTILE_URL = 'https://e.example/"><svg/onload=window.pwned=1>';
const STYLE_BREAK_URL = "https://e.example/</style><script>window.pwned=2</script>";
const JUSTIFICATION = '</style><script>window.pwned=3</script><img src=x onerror="window.pwned=4">';
const OWNER = '"><b id=owned>payments</b>';
const SEEN_HEADER = "<iframe srcdoc='<script>parent.pwned=5</script>'></iframe>";
const POLICY = "<img src=x onerror=window.pwned=6> alerts";
const LONG_URL = `https://cdn.example/${"a".repeat(300)}.js`;

let page: Page | undefined;
let browser: Browser | undefined;
let server: Server | undefined;
let fileUrl = "";
let configFile = "";
const requests: string[] = [];

async function pageServer(): Promise<string> {
  server = createServer((_req, res) => {
    res.writeHead(200, { "x-frame-options": SEEN_HEADER, "x-content-type-options": "nosniff" });
    res.end("<html>payment page</html>");
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/checkout`;
}

function config(pageUrl: string): string {
  return `version: 1
account_id: ${ACCOUNT}
zones:
  - zone_id: ${ZID}
    name: ${NAME}
    page_shield:
      script_inventory:
        pages: [${NAME}/checkout*]
        authorized:
          - url: https://js.stripe.com/v3/*
            justification: ${JSON.stringify(JUSTIFICATION)}
            owner: ${JSON.stringify(OWNER)}
        headers:
          urls: [${pageUrl}]
          pinned:
            x-frame-options: DENY
            x-content-type-options: nosniff
`;
}

/** The zone's scripts, the alert policy, the file; the report written by the CLI. */
async function report(): Promise<string> {
  await emu.admin("POST", "/zones", { name: NAME, plan: "enterprise" });
  for (const url of ["https://js.stripe.com/v3/", HOSTILE_URL, STYLE_BREAK_URL, LONG_URL])
    await emu.admin("POST", "/scripts", { zone_id: ZID, event: "seen", url, page: `${NAME}/checkout` });
  await emu.call("POST", `accounts/${ACCOUNT}/alerting/v3/policies`, {
    name: POLICY,
    alert_type: "scriptmonitor_alert_new_malicious_scripts",
    enabled: true,
    mechanisms: { email: [{ id: "secops@example.com" }] },
  });
  const dir = await tempDir("zoneform-html-");
  configFile = join(dir, "zoneform.yaml");
  await writeFile(configFile, config(await pageServer()));
  const out = join(dir, "audit.html");
  const r = await runCli(
    emu,
    ["audit", "-c", "zoneform.yaml", "--format", "html", "--out", "audit.html", "--allow-private-addresses"],
    { cwd: dir },
  );
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe("");
  return out;
}

// biome-ignore lint/performance/useDomNodeTextContent: what the browser renders is what is tested.
const text = () => page!.locator("body").innerText();

describe.skipIf(!RUN)(
  `audit --format html in Chromium${HAVE_CHROMIUM ? "" : ` (${CHROMIUM} missing: apt-get install -y chromium)`}`,
  () => {
    beforeAll(async () => {
      if (!HAVE_CHROMIUM) throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install -y chromium)`);
      const file = await report();
      fileUrl = pathToFileURL(file).href;
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      // Anything but the file itself is refused (and recorded): nothing may leave the page.
      await context.route("**/*", (route) =>
        route.request().url() === fileUrl ? route.continue() : route.abort("blockedbyclient"),
      );
      page = await context.newPage();
      page.on("request", (r) => requests.push(r.url()));
      await page.goto(fileUrl, { waitUntil: "load" });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    });

    it("shows the overall result and the provenance first, then the zone", async () => {
      const shown = (await text()).replace(/\n+/g, "\n");
      expect(shown.startsWith("Page Shield audit\nFAIL (exit 2)\nResult: FAIL (exit 2)")).toBe(true);
      const at = (s: string) => {
        expect(shown).toContain(s);
        return shown.indexOf(s);
      };
      expect(at("Result: FAIL (exit 2) on 3 unauthorized scripts, 1 changed or missing header")).toBeLessThan(
        at("Provenance"),
      );
      expect(at("Provenance")).toBeLessThan(at(`Zone ${NAME}`));
      expect(shown).toContain(`zoneform\n${VERSION}\nRun at\n${TEST_NOW}`);
      const sha256 = createHash("sha256")
        .update(await readFile(configFile))
        .digest("hex");
      expect(shown).toContain(`zoneform.yaml\t${sha256}\t-\tnot in a git checkout`);
      expect(shown).toContain(`${ZID}\t${NAME}\t${NAME}/checkout*`);
    });

    it("shows the zone's tables: scripts with justification and owner, findings by requirement, headers, alerts", async () => {
      const cells = (heading: string) =>
        page!.locator(`h3:has-text("${heading}") ~ table`).first().locator("td").allInnerTexts();
      const scripts = await cells("Scripts of the payment pages");
      expect(scripts.slice(0, 3)).toEqual(["https://js.stripe.com/v3/*", JUSTIFICATION, OWNER]);
      const headings = await page!.locator("h4").allInnerTexts();
      expect(headings).toEqual(expect.arrayContaining(["PCI DSS 6.4.3", "PCI DSS 11.6.1"]));
      const headers = await cells("Security headers of the payment pages");
      expect(headers).toEqual(
        expect.arrayContaining(["x-frame-options", "DENY", `changed: ${SEEN_HEADER}`, "nosniff", "as pinned"]),
      );
      const alerts = await cells("Alert policies in place");
      expect(alerts).toEqual(expect.arrayContaining([POLICY, "enabled", "email secops@example.com"]));
    });

    it("shows every hostile string as text, makes no element of it and runs no script", async () => {
      const shown = await text();
      for (const s of [HOSTILE_URL, STYLE_BREAK_URL, JUSTIFICATION, OWNER, SEEN_HEADER, POLICY])
        expect(shown).toContain(s);
      const dom = await page!.evaluate(() => ({
        pwned: (window as unknown as { pwned?: unknown }).pwned,
        active: document.querySelectorAll("script, img, svg, iframe, object, embed, link, base, form, b, a").length,
        styles: document.querySelectorAll("style").length,
        owned: document.getElementById("owned") !== null,
        handlers: [...document.querySelectorAll("*")].flatMap((e) =>
          [...e.attributes].filter((a) => a.name.startsWith("on")).map((a) => a.name),
        ),
      }));
      expect(dom).toEqual({ pwned: undefined, active: 0, styles: 1, owned: false, handlers: [] });
      const csp = await page!.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content");
      expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; /);
      expect(csp).not.toContain("script-src");
    });

    it("sends no request but the page itself", () => {
      expect(requests).toEqual([fileUrl]);
    });

    it("prints: light, tables within the page, long URLs wrapped, a PDF", async () => {
      await page!.emulateMedia({ media: "print" });
      await page!.setViewportSize({ width: 700, height: 1000 });
      const layout = await page!.evaluate(() => ({
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        cellsOverflowing: [...document.querySelectorAll("td")].filter((td) => td.scrollWidth > td.clientWidth + 1)
          .length,
        background: getComputedStyle(document.body).backgroundColor,
      }));
      expect(layout).toEqual({ overflow: 0, cellsOverflowing: 0, background: "rgb(255, 255, 255)" });
      const pdf = await page!.pdf({ format: "A4" });
      expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
      const html = await readFile(new URL(fileUrl), "utf8");
      expect(html).toContain("a".repeat(300));
    });
  },
);
