// Where a payment page may be fetched from: public addresses only, unless the run allows the others.
// Spec: docs/commands/audit.md, "Payment page headers". The socket's lookup checks every DNS answer and
// connects to exactly those, so nothing resolves the name a second time.
import { promises as dns } from "node:dns";
import { BlockList, isIP } from "node:net";
import type { ConnectLookup } from "../cloudflare/index.js";

interface Range {
  what: string;
  cidr: string;
  /** Never a web page (unspecified, multicast, broadcast): refused even when private addresses are allowed. */
  always: boolean;
  list: BlockList;
}

export interface RefusedAddress {
  address: string;
  what: string;
  /** Refused even with allowPrivateAddresses. */
  always: boolean;
}

type Family = "ipv4" | "ipv6";

const IPV4: ReadonlyArray<readonly [string, number, string, boolean?]> = [
  ["0.0.0.0", 8, "a 'this network' address", true],
  ["127.0.0.0", 8, "a loopback address"],
  ["10.0.0.0", 8, "a private address (RFC 1918)"],
  ["172.16.0.0", 12, "a private address (RFC 1918)"],
  ["192.168.0.0", 16, "a private address (RFC 1918)"],
  ["100.64.0.0", 10, "a shared address (CGNAT, RFC 6598)"],
  ["169.254.0.0", 16, "a link-local address (cloud metadata services live there)"],
  ["192.0.0.0", 24, "an IETF protocol address"],
  ["192.0.2.0", 24, "a documentation address"],
  ["198.51.100.0", 24, "a documentation address"],
  ["203.0.113.0", 24, "a documentation address"],
  ["198.18.0.0", 15, "a benchmarking address"],
  ["224.0.0.0", 4, "a multicast address", true],
  ["255.255.255.255", 32, "the broadcast address", true],
  ["240.0.0.0", 4, "a reserved address"],
];

const IPV6: ReadonlyArray<readonly [string, number, string, boolean?]> = [
  ["::", 128, "the unspecified address", true],
  ["::1", 128, "a loopback address"],
  ["ff00::", 8, "a multicast address", true],
  ["fe80::", 10, "a link-local address"],
  ["fc00::", 7, "a unique local address (ULA)"],
  ["2001:db8::", 32, "a documentation address"],
  ["64:ff9b:1::", 48, "a local-use NAT64 address"],
  ["2001::", 32, "a Teredo address"],
  ["100::", 64, "a discard-only address"],
  ["::", 96, "an IPv4-compatible address (deprecated)"],
];

function v4Groups(address: string): string {
  const [a, b, c, d] = address.split(".").map(Number) as [number, number, number, number];
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

function range(address: string, prefix: number, family: Family, what: string, always = false): Range {
  const list = new BlockList();
  list.addSubnet(address, prefix, family);
  return { what, cidr: `${address}/${prefix}`, always, list };
}

/** Every refused range; an IPv4 one also as NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach it. */
const RANGES: readonly Range[] = [
  ...IPV4.flatMap(([address, prefix, what, always]) => {
    const [hi, lo] = v4Groups(address).split(":") as [string, string];
    return [
      range(address, prefix, "ipv4", what, always),
      range(`64:ff9b::${hi}:${lo}`, 96 + prefix, "ipv6", `${what} through NAT64`, always),
      range(`2002:${hi}:${lo}::`, 16 + prefix, "ipv6", `${what} through 6to4`, always),
    ];
  }),
  ...IPV6.map(([address, prefix, what, always]) => range(address, prefix, "ipv6", what, always)),
];

/** IPv6 outside global unicast (2000::/3) is not public, but for the IPv4-mapped and NAT64 forms judged above. */
const GLOBAL_UNICAST = range("2000::", 3, "ipv6", "");
const EMBEDS_IPV4 = [range("::ffff:0:0", 96, "ipv6", ""), range("64:ff9b::", 96, "ipv6", "")];

/** This machine's addresses (and their IPv4-mapped forms): the only ones plain http:// may reach. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

export function ipLiteral(hostname: string): { address: string; family: Family } | undefined {
  const address = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  const v = isIP(address);
  return v === 4 ? { address, family: "ipv4" } : v === 6 ? { address, family: "ipv6" } : undefined;
}

export function nonPublicAddress(address: string): RefusedAddress | undefined {
  const ip = ipLiteral(address);
  if (!ip) return { address, what: "not an IP address", always: true };
  const hit = RANGES.find((r) => r.list.check(ip.address, ip.family));
  if (hit) return { address: ip.address, what: `${hit.what} (${hit.cidr})`, always: hit.always };
  const outside =
    ip.family === "ipv6" &&
    !GLOBAL_UNICAST.list.check(ip.address, "ipv6") &&
    !EMBEDS_IPV4.some((r) => r.list.check(ip.address, "ipv6"));
  return outside ? { address: ip.address, what: "not a global unicast address (2000::/3)", always: false } : undefined;
}

export function refusedAddress(address: string, allowPrivate: boolean): RefusedAddress | undefined {
  const refused = nonPublicAddress(address);
  return refused && (refused.always || !allowPrivate) ? refused : undefined;
}

export function isLoopbackHostname(hostname: string): boolean {
  if (hostname.toLowerCase() === "localhost") return true;
  const ip = ipLiteral(hostname);
  return ip !== undefined && LOOPBACK.check(ip.address, ip.family);
}

interface ResolvedAddress {
  address: string;
  family: number;
}

export type PageResolver = (hostname: string, family: 0 | 4 | 6) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: PageResolver = (hostname, family) => dns.lookup(hostname, { all: true, family });

const PRIVATE_ADDRESS_CODE = "ZONEFORM_PRIVATE_ADDRESS";

export class PrivateAddressError extends Error {
  readonly code = PRIVATE_ADDRESS_CODE;
  constructor(
    readonly hostname: string,
    readonly refused: RefusedAddress,
  ) {
    super(`${hostname} resolves to ${refused.address}, ${refused.what}`);
    this.name = "PrivateAddressError";
  }
}

function familyOf(option: number | string | undefined): 0 | 4 | 6 {
  return option === 4 || option === "IPv4" ? 4 : option === 6 || option === "IPv6" ? 6 : 0;
}

/** net.connect's `lookup`: one resolution, every address checked; any refused answer fails it. */
export function guardedLookup(resolve: PageResolver, allowPrivate: boolean): ConnectLookup {
  return (hostname, options, callback) => {
    resolve(hostname, familyOf(options.family)).then(
      (answers) => {
        if (answers.length === 0) {
          const err = Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" });
          return callback(err, "", 0);
        }
        const refused = answers.map((a) => refusedAddress(a.address, allowPrivate)).find((r) => r !== undefined);
        if (refused) return callback(new PrivateAddressError(hostname, refused), "", 0);
        const checked = answers.map((a) => ({ address: a.address, family: a.family }));
        if (options.all) callback(null, checked);
        else callback(null, checked[0]!.address, checked[0]!.family);
      },
      (err: Error) => callback(err, "", 0),
    );
  };
}
