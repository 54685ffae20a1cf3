import { isIP } from "node:net";
import type { UpstreamAddressCheck } from "@mcpsm/domain/use-cases";
import { networkPolicy, UpstreamAddressRefused } from "@mcpsm/mcp-runtime";

/**
 * The domain's write-time check of URLs the service will call (an oauth2Config's authURL and tokenURL),
 * judged by the same network policy as every outbound connection (UPSTREAM_ALLOWED_NETWORKS). Without DNS:
 * a literal address, or a localhost name, is judged now; any other host name when it is called.
 */
export const upstreamAddressCheck = (allowedNetworks: ReadonlyArray<string>): typeof UpstreamAddressCheck.Service => {
  const policy = networkPolicy(allowedNetworks);
  return {
    refusal: (url) => {
      let host: string;
      try {
        host = new URL(url).hostname;
      } catch {
        return undefined; // the URL's own rule says what is wrong with it
      }
      const literal = host.replace(/^\[(.*)\]$/, "$1");
      const address = isIP(literal) !== 0 ? literal : /^localhost$|\.localhost$/i.test(host) ? "127.0.0.1" : undefined;
      const range = address === undefined ? undefined : policy.refusal(address);
      return range === undefined || address === undefined
        ? undefined
        : new UpstreamAddressRefused(host, address, range).message;
    },
  };
};
