import { type LookupAddress, lookup as dnsLookup } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { Agent, buildConnector } from "undici";

// SSRF protection for upstream calls. Every connection the upstream client opens goes through one undici
// connector that checks the address it is about to connect to — the resolved one, at connect time, so a
// hostname that resolves (or re-resolves) to an internal address is caught too. Address parsing and range
// classification are ipaddr.js's; nothing here parses an IP by hand.

/** A connection attempt to an address the network policy refuses. */
export class UpstreamAddressRefused extends Error {
  readonly code = "ERR_UPSTREAM_ADDRESS_REFUSED";
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(
      host === address
        ? `address ${address} (${range}) is not allowed by the upstream network policy`
        : `${host} resolves to ${address} (${range}), which the upstream network policy does not allow`,
    );
    this.name = "UpstreamAddressRefused";
  }
}

/** Finds an UpstreamAddressRefused anywhere in an error's cause chain (undici may wrap it). */
export const refusedIn = (error: unknown): UpstreamAddressRefused | undefined => {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof UpstreamAddressRefused) return e;
    if (e instanceof AggregateError) {
      const inner = e.errors.find((x) => x instanceof UpstreamAddressRefused);
      if (inner) return inner;
    }
  }
  return undefined;
};

/** Which upstream addresses may be connected to. */
export interface NetworkPolicy {
  /** undefined when `address` may be used, else the name of the special range it falls in. */
  readonly refusal: (address: string) => string | undefined;
}

/** Parses CIDRs such as `127.0.0.0/8` or `::1/128`; throws on a malformed one (checked at start-up). */
export const parseCidrs = (cidrs: ReadonlyArray<string>): ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]> =>
  cidrs.map((cidr) => ipaddr.parseCIDR(cidr.trim()));

/**
 * Public unicast addresses are allowed; every special range ipaddr.js knows (loopback, private, link-local
 * — which holds the cloud metadata address —, unique-local, carrier-grade NAT, multicast, reserved,
 * unspecified, NAT64/6to4/Teredo embeddings, ...) is refused unless it lies in one of `allowed`.
 * IPv6 addresses that embed an IPv4 address are judged by it first (see embeddedIPv4).
 */
export const networkPolicy = (allowedCidrs: ReadonlyArray<string>): NetworkPolicy => {
  const allowed = parseCidrs(allowedCidrs);
  const judge = (parsed: ipaddr.IPv4 | ipaddr.IPv6): string | undefined => {
    if (allowed.some(([net, bits]) => net.kind() === parsed.kind() && parsed.match(net, bits))) return undefined;
    const range = parsed.range();
    return range === "unicast" ? undefined : range;
  };
  return {
    refusal: (address) => {
      let parsed: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        parsed = ipaddr.process(address);
      } catch {
        return "unparseable";
      }
      const embedded = parsed.kind() === "ipv6" ? embeddedIPv4(parsed as ipaddr.IPv6) : undefined;
      if (embedded === undefined) return judge(parsed);
      // Compatible, mapped and translated addresses are that IPv4 address; a NAT64, 6to4 or Teredo one is
      // refused when the IPv4 address it leads to is, and otherwise judged as itself.
      const inner = judge(embedded.ipv4);
      if (embedded.is === "the address") return inner === undefined ? undefined : `${inner} (as ${embedded.form})`;
      return inner === undefined ? judge(parsed) : `${inner} (embedded in ${embedded.form})`;
    },
  };
};

/** The IPv4 address an IPv6 address carries, and whether it is that address or leads to it. */
interface EmbeddedIPv4 {
  readonly ipv4: ipaddr.IPv4;
  readonly form: string;
  readonly is: "the address" | "a route to it";
}

const ipv4Of = (bytes: ReadonlyArray<number>, from: number, xor = 0): ipaddr.IPv4 =>
  new ipaddr.IPv4(bytes.slice(from, from + 4).map((b) => b ^ xor));

const zeros = (bytes: ReadonlyArray<number>, from: number, to: number): boolean =>
  bytes.slice(from, to).every((b) => b === 0);

/**
 * Every IPv6 form that embeds an IPv4 address (so `http://[::7f00:1]`, `::127.0.0.1` written another way,
 * cannot slip past the IPv4 rules): IPv4-compatible `::a.b.c.d` (not `::` or `::1`), IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d` (RFC 6145), NAT64 `64:ff9b::/96` (RFC 6052), 6to4
 * `2002::/16` (RFC 3056) and Teredo `2001::/32` (RFC 4380, the client address, stored inverted).
 */
export const embeddedIPv4 = (address: ipaddr.IPv6): EmbeddedIPv4 | undefined => {
  const b = address.toByteArray();
  // `::` and `::1` are the IPv6 unspecified and loopback addresses, not IPv4 ones.
  if (zeros(b, 0, 12) && !(zeros(b, 12, 15) && (b[15] ?? 0) <= 1))
    return { ipv4: ipv4Of(b, 12), form: "an IPv4-compatible IPv6 address", is: "the address" };
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff)
    return { ipv4: ipv4Of(b, 12), form: "an IPv4-mapped IPv6 address", is: "the address" };
  if (zeros(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(b, 10, 12))
    return { ipv4: ipv4Of(b, 12), form: "an IPv4-translated IPv6 address", is: "the address" };
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(b, 4, 12))
    return { ipv4: ipv4Of(b, 12), form: "a NAT64 address", is: "a route to it" };
  if (b[0] === 0x20 && b[1] === 0x02) return { ipv4: ipv4Of(b, 2), form: "a 6to4 address", is: "a route to it" };
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0)
    return { ipv4: ipv4Of(b, 12, 0xff), form: "a Teredo address", is: "a route to it" };
  return undefined;
};

type LookupFunction = typeof dnsLookup;

/** Strips the brackets of an IPv6 literal host (`[::1]` → `::1`). */
const bare = (host: string) => (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host);

/**
 * A `lookup` for net/tls that resolves as usual, keeps only the addresses the policy allows, and fails
 * with UpstreamAddressRefused when none is left.
 */
export const policyLookup =
  (policy: NetworkPolicy, resolve: LookupFunction = dnsLookup) =>
  (
    hostname: string,
    options: { family?: number; all?: boolean; hints?: number } | number,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const opts = typeof options === "number" ? { family: options } : (options ?? {});
    resolve(hostname, { family: opts.family ?? 0, hints: opts.hints ?? 0, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      const usable = list.filter((a) => policy.refusal(a.address) === undefined);
      if (usable.length === 0) {
        const first = list[0];
        return callback(
          new UpstreamAddressRefused(
            hostname,
            first?.address ?? "?",
            first ? (policy.refusal(first.address) ?? "") : "none",
          ),
          [],
        );
      }
      if (opts.all) return callback(null, usable);
      const chosen = usable[0] as LookupAddress;
      return callback(null, chosen.address, chosen.family);
    });
  };

export interface PolicyAgentOptions {
  readonly policy: NetworkPolicy;
  /** Name resolution; defaults to the system's (`dns.lookup`). Tests inject their own. */
  readonly resolve?: LookupFunction;
  /** TCP/TLS connect timeout in ms. */
  readonly connectTimeoutMs?: number;
  /** Certificate authorities trusted instead of the system's (a private PKI; tests). */
  readonly ca?: string | undefined;
}

/**
 * An undici dispatcher whose every new connection is checked against the policy: IP-literal hosts before
 * connecting (net skips `lookup` for them), names through `policyLookup`.
 */
export const policyAgent = (options: PolicyAgentOptions): Agent => {
  const connect = buildConnector({
    lookup: policyLookup(options.policy, options.resolve) as never,
    timeout: options.connectTimeoutMs ?? 10_000,
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
  });
  return new Agent({
    connect: (opts, callback) => {
      const host = bare(opts.hostname);
      if (isIP(host) !== 0) {
        const range = options.policy.refusal(host);
        if (range !== undefined) return callback(new UpstreamAddressRefused(host, host, range), null);
      }
      return connect(opts, callback);
    },
    keepAliveTimeout: 4_000,
    connections: 256,
  });
};
