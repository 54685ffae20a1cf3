import { validateHostHeader } from "@modelcontextprotocol/server";
import type { PublicSite } from "./public-url.js";

// The fast lane asks on every request whether its Host header is one the SDK path accepts. The answer
// depends only on the header and the accepted hosts (fixed once the site is known), so it is worked out once
// per Host value: the SDK's check copied the list and parsed the header on every call.

/** Distinct Host values remembered; a caller sending many others has each checked again. */
const MAX_HOSTS = 64;

/** True when `host` is a Host header the SDK path accepts for `site` (the SDK's own check, remembered). */
export const hostCheck = (site: Pick<PublicSite, "allowedHosts">) => {
  const verdicts = new Map<string, boolean>();
  let verdictsFor: ReadonlyArray<string> | undefined;
  return (host: string | undefined): boolean => {
    const hosts = site.allowedHosts();
    if (hosts !== verdictsFor) {
      verdicts.clear();
      verdictsFor = hosts;
    }
    if (host === undefined) return validateHostHeader(host, [...hosts]).ok;
    let ok = verdicts.get(host);
    if (ok === undefined) {
      ok = validateHostHeader(host, [...hosts]).ok;
      if (verdicts.size < MAX_HOSTS) verdicts.set(host, ok);
    }
    return ok;
  };
};
