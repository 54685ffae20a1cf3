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
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export const networkPolicy = (allowedCidrs: ReadonlyArray<string>): NetworkPolicy => {
  const allowed = parseCidrs(allowedCidrs);
  return {
    refusal: (address) => {
      let parsed: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        parsed = ipaddr.process(address);
      } catch {
        return "unparseable";
      }
      if (allowed.some(([net, bits]) => net.kind() === parsed.kind() && parsed.match(net, bits))) return undefined;
      const range = parsed.range();
      return range === "unicast" ? undefined : range;
    },
  };
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
}

/**
 * An undici dispatcher whose every new connection is checked against the policy: IP-literal hosts before
 * connecting (net skips `lookup` for them), names through `policyLookup`.
 */
export const policyAgent = (options: PolicyAgentOptions): Agent => {
  const connect = buildConnector({
    lookup: policyLookup(options.policy, options.resolve) as never,
    timeout: options.connectTimeoutMs ?? 10_000,
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
