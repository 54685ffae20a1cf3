import { afterAll, beforeAll } from "vitest";
import type { FrameHeaders, TenantRateDecision } from "../../src/index.js";
import { buildFixture } from "./fixture.js";
import { makeServices, type RunningMcp, type Services, startMcp } from "./harness.js";
import { send } from "./raw-exchange.js";
import { startUpstream, type Upstream } from "./upstream.js";

/** The tenant rate limit both runtimes share, steered by the tests. */
export interface SteeredRateLimit {
  /** Tenants over their limit. */
  readonly refused: Set<string>;
  /** Set: the limiter fails (its store is down), which the runtime answers as an internal error. */
  down: boolean;
}

/**
 * Two runtimes over one store and one upstream, the fast lane on in `fast` and off in `slow`, both under
 * `rateLimit`, with the fixture's servers and tools: what the fast-lane tests send every request to.
 */
export interface LanePair {
  readonly services: Services;
  readonly upstream: Upstream;
  readonly fast: RunningMcp;
  readonly slow: RunningMcp;
  readonly fixture: Awaited<ReturnType<typeof buildFixture>>;
  readonly rateLimit: SteeredRateLimit;
}

const SETTINGS = { upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 400, upstreamMaxResponseBytes: 4096 };

/**
 * Headers as the service's request frame gives them (apps/api http/frame-headers.ts): mixed-case names, some
 * of which the answers also send (Cache-Control, the RateLimit-* of the tenant budget), which then take the
 * frame's place with the answer's name and value.
 */
export const HOST_FRAME: FrameHeaders = [
  "X-Request-Id",
  "req-1",
  "X-Content-Type-Options",
  "nosniff",
  "Cache-Control",
  "no-store",
  "RateLimit-Limit",
  "3000",
  "RateLimit-Remaining",
  "2999",
  "RateLimit-Reset",
  "60",
];

/**
 * Starts a LanePair before the file's tests and closes it after them; its fields are read once it started.
 * `frame`: headers both runtimes are handed with every request, as a host's request frame hands them.
 */
export const useLanePair = (frame?: FrameHeaders): LanePair => {
  const rateLimit: SteeredRateLimit = { refused: new Set(), down: false };
  const tenantRateLimit = async (tenant: string): Promise<TenantRateDecision> => {
    if (rateLimit.down) throw new Error("the rate limiter's store is down");
    return {
      allowed: !rateLimit.refused.has(tenant),
      retryAfterSeconds: 7,
      headers: {
        "RateLimit-Limit": "100",
        "RateLimit-Remaining": rateLimit.refused.has(tenant) ? "0" : "99",
        "RateLimit-Reset": "7",
      },
    };
  };
  const pair = { rateLimit } as {
    -readonly [K in keyof LanePair]: LanePair[K];
  };
  beforeAll(async () => {
    pair.services = makeServices();
    pair.upstream = await startUpstream();
    pair.fast = await startMcp(pair.services, SETTINGS, { tenantRateLimit }, frame);
    pair.slow = await startMcp(pair.services, SETTINGS, { tenantRateLimit, fastLane: false }, frame);
    pair.fixture = await buildFixture(pair.services, pair.upstream);
  });
  afterAll(async () => {
    await pair.fast?.close();
    await pair.slow?.close();
    await pair.upstream?.close();
    await pair.services?.dispose();
  });
  return pair;
};

/**
 * POSTs `body` to `path` on both runtimes (headers left undefined are not sent): both raw answers, the fast
 * one read as if it came from the slow one's URL (answers name the runtime's own URL in metadata links), and
 * whether the lane answered it.
 */
export const postToBoth = async (
  pair: LanePair,
  path: string,
  headers: Record<string, string | undefined>,
  body: string,
) => {
  const { fast, slow } = pair;
  const defined = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  const before = fast.runtime.fastLaneAnswers();
  const answered = await send(fast.url, path, defined, body);
  const fromFast = {
    ...answered,
    headers: answered.headers.map((line) => line.replaceAll(fast.url, slow.url)),
    body: answered.body.replaceAll(fast.url, slow.url),
  };
  const laned = fast.runtime.fastLaneAnswers() > before;
  const fromSlow = await send(slow.url, path, defined, body);
  return { fromFast, fromSlow, laned };
};
