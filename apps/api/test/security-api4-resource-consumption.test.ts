import { randomUUID } from "node:crypto";
import { connect } from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SECURITY_SETTINGS, type RateLimitSettings } from "../src/config/security-config.js";
import { type Res, startTestService, type TestService } from "./support/harness.js";
import { expectInvalid, expectProblem, expectStatus } from "./support/problems.js";
import { unknownId } from "./support/records.js";

// OWASP API4:2023 Unrestricted Resource Consumption. Covered elsewhere: bodies over 1 MiB (413, with and
// without Content-Length) and JSON nested 5000 deep (400) in transport.test.ts; page sizes (limit clamped to
// 1000, below 1 refused) in pagination.test.ts; per-tenant quotas on servers, variables, providers, tools and
// tokens, also under concurrency, in quotas.test.ts. Here: rate limits per client address and per tenant, in
// memory and shared through Redis, their headers, wide bodies, oversized heads and slow clients.

const rateLimit = (over: Partial<RateLimitSettings>): RateLimitSettings => ({
  ...DEFAULT_SECURITY_SETTINGS.rateLimit,
  enabled: true,
  address: { points: 10_000, windowSeconds: 60, burst: 0 },
  tenant: { points: 10_000, windowSeconds: 60, burst: 0 },
  ...over,
});

const expectRateLimited = (res: Res, windowSeconds: number) => {
  expectProblem(res, 429, "RESOURCE_EXHAUSTED");
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds * 10);
  expect(res.headers.get("ratelimit-remaining")).toBe("0");
  expect(res.headers.get("ratelimit-reset")).toBe(String(retryAfter));
  expect(res.headers.get("ratelimit-policy")).toMatch(/^\d+;w=\d+$/);
};

describe("rate limit per client address (before authentication)", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      security: { rateLimit: rateLimit({ address: { points: 5, windowSeconds: 60, burst: 2 } }) },
    });
  });
  afterAll(() => svc?.close());

  it("5 per window plus a burst of 2, then 429 with Retry-After and RateLimit-*; probes are never limited", async () => {
    const anonymous = svc.client();
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 7; i++) {
      const res = await anonymous.get("/openapi.json");
      expectStatus(res, 200);
      expect(res.headers.get("ratelimit-limit")).toBe("5");
      remaining.push(res.headers.get("ratelimit-remaining"));
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0", "0", "0"]);
    expectRateLimited(await anonymous.get("/openapi.json"), 60);
    // A flood of bad credentials is cut off here too, before any token is checked.
    expectRateLimited(await svc.client("forged.token.value").get("/servers"), 60);
    expectRateLimited(await svc.client(await svc.token("someone")).get(`/servers/${unknownId()}`), 60);
    expectStatus(await anonymous.get("/healthz"), 200);
    expectStatus(await anonymous.get("/readyz"), 200);
  });
});

describe("the client address behind proxies", () => {
  it("a made-up X-Forwarded-For does not escape the address limit unless TRUST_PROXY_HOPS says a proxy sets it", async () => {
    const address = { points: 2, windowSeconds: 60, burst: 0 };
    const direct = await startTestService({ security: { rateLimit: rateLimit({ address }) } });
    try {
      const anonymous = direct.client();
      for (let i = 0; i < 2; i++)
        expectStatus(await anonymous.get("/openapi.json", { "x-forwarded-for": `203.0.113.${i}` }), 200);
      expectRateLimited(await anonymous.get("/openapi.json", { "x-forwarded-for": "203.0.113.99" }), 60);
    } finally {
      await direct.close();
    }
    const proxied = await startTestService({
      security: { rateLimit: rateLimit({ address }), http: { ...DEFAULT_SECURITY_SETTINGS.http, trustProxyHops: 1 } },
    });
    try {
      const viaProxy = (client: string) =>
        proxied.client().get("/openapi.json", { "x-forwarded-for": `spoofed, ${client}` });
      expectStatus(await viaProxy("198.51.100.1"), 200);
      expectStatus(await viaProxy("198.51.100.1"), 200);
      expectRateLimited(await viaProxy("198.51.100.1"), 60);
      // Another client behind the same proxy has its own budget; the client-chosen left part is ignored.
      expectStatus(await viaProxy("198.51.100.2"), 200);
    } finally {
      await proxied.close();
    }
  });
});

describe("rate limit per tenant (after authentication)", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      security: { rateLimit: rateLimit({ tenant: { points: 3, windowSeconds: 60, burst: 1 } }) },
    });
  });
  afterAll(() => svc?.close());

  it("a tenant over its budget gets 429 on every route, before scope and validation; other tenants are unaffected", async () => {
    const alice = await svc.tenant("alice");
    for (let i = 0; i < 4; i++) expectStatus(await alice.api.get("/servers"), 200);
    expectRateLimited(await alice.api.get("/servers"), 60);
    expectRateLimited(await alice.api.post("/servers", { server: { name: "" } }), 60);
    expectRateLimited(await svc.client(await svc.token(alice.id, [])).get("/variables"), 60);
    // Another token of the same tenant draws on the same budget.
    expectRateLimited(await svc.client(await svc.token(alice.id)).get("/providers"), 60);
    const bob = await svc.tenant("bob");
    expectStatus(await bob.api.get("/servers"), 200);
    // Unauthenticated requests are not charged to any tenant (401 as usual).
    expectProblem(await svc.client().get("/servers"), 401, "UNAUTHENTICATED");
  });

  it("the headers report the lower of the two budgets on success", async () => {
    const carol = await svc.tenant("carol");
    const res = await carol.api.get("/servers");
    expectStatus(res, 200);
    expect(res.headers.get("ratelimit-limit")).toBe("3");
    expect(res.headers.get("ratelimit-remaining")).toBe("2");
  });
});

// Runs when TEST_REDIS_URL names a server (.ci/run sets the machine's); a named server that cannot be reached fails.
const redisUrl = process.env.TEST_REDIS_URL ?? "";
const describeWithRedis = redisUrl === "" ? () => {} : describe;

describeWithRedis("rate limits shared through Redis", () => {
  const prefix = `mcpsm-test:${randomUUID()}`;
  let redis: Redis;
  let reachable = false;

  beforeAll(async () => {
    redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000 });
    reachable = await redis.connect().then(
      () => true,
      () => false,
    );
    if (!reachable) throw new Error(`TEST_REDIS_URL is set but ${redisUrl} cannot be reached`);
  });
  afterAll(async () => {
    if (reachable) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      expect(await redis.keys(`${prefix}*`)).toEqual([]);
    }
    redis.disconnect();
  });

  it("two instances with the same REDIS_URL and prefix share one tenant budget", async () => {
    const shared = rateLimit({ redisUrl, keyPrefix: prefix, tenant: { points: 4, windowSeconds: 60, burst: 0 } });
    const first = await startTestService({ security: { rateLimit: shared } });
    const second = await startTestService({ security: { rateLimit: shared } });
    try {
      const tenant = `shared-${randomUUID()}`;
      const a = first.client(await first.token(tenant));
      const b = second.client(await second.token(tenant));
      expectStatus(await a.get("/servers"), 200);
      expectStatus(await b.get("/servers"), 200);
      expectStatus(await a.get("/servers"), 200);
      const last = await b.get("/servers");
      expectStatus(last, 200);
      expect(last.headers.get("ratelimit-remaining")).toBe("0");
      expectRateLimited(await a.get("/servers"), 60);
      expectRateLimited(await b.get("/servers"), 60);
      expect((await redis.keys(`${prefix}*`)).length).toBeGreaterThan(0);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("with Redis unreachable, each instance still limits in its own memory (no 5xx, no free pass)", async () => {
    const broken = await startTestService({
      security: {
        rateLimit: rateLimit({
          redisUrl: "redis://127.0.0.1:1",
          keyPrefix: prefix,
          tenant: { points: 2, windowSeconds: 60, burst: 0 },
        }),
      },
    });
    try {
      const api = broken.client(await broken.token(`insured-${randomUUID()}`));
      expectStatus(await api.get("/servers"), 200);
      expectStatus(await api.get("/servers"), 200);
      expectRateLimited(await api.get("/servers"), 60);
    } finally {
      await broken.close();
    }
  });
});

describe("bodies, heads and slow clients", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      security: { http: { ...DEFAULT_SECURITY_SETTINGS.http, headersTimeoutMs: 300, requestTimeoutMs: 600 } },
    });
  });
  afterAll(() => svc?.close());

  it("a wide body just under 1 MiB (45,000 ids, 40,000 keys) is refused quickly with 400", async () => {
    const alice = await svc.tenant("wide");
    const ids = Array.from({ length: 45_000 }, () => ({ id: "Ab3dE5gH9jK" }));
    let started = Date.now();
    expectInvalid(await alice.api.post("/servers", { server: { name: "wide", resources: ids } }));
    expect(Date.now() - started).toBeLessThan(5_000);
    const keys = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, i]));
    started = Date.now();
    expectInvalid(await alice.api.post("/servers", { server: { name: "keys", ...keys } }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await alice.api.get("/servers")).body.servers).toEqual([]);
  });

  it("a request head over 16 KiB answers 431 (the HTTP server's own answer)", async () => {
    const res = await fetch(`${svc.url}/healthz`, { headers: { "x-filler": "x".repeat(20 * 1024) } });
    expect(res.status).toBe(431);
    expectStatus(await svc.client().get("/healthz"), 200);
  });

  /** Opens a socket, sends `first`, then dribbles `drip` a byte every 100 ms; resolves when the server hangs up. */
  const slowClient = (first: string, drip: string) =>
    new Promise<{ readonly answer: string; readonly ms: number }>((resolve) => {
      const started = Date.now();
      const { port } = new URL(svc.url);
      const socket = connect(Number(port), "127.0.0.1");
      let answer = "";
      let i = 0;
      const timer = setInterval(() => {
        if (i < drip.length && socket.writable) socket.write(drip[i++]!);
      }, 100);
      socket.on("data", (chunk) => {
        answer += chunk.toString("utf8");
      });
      socket.on("close", () => {
        clearInterval(timer);
        resolve({ answer, ms: Date.now() - started });
      });
      socket.on("error", () => {});
      socket.write(first);
    });

  it("slow-loris: a head that never completes is cut off after the headers timeout (408)", async () => {
    const { answer, ms } = await slowClient("GET /servers HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n".repeat(10));
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeLessThan(3_000);
  });

  it("a body dribbled slower than the request timeout is cut off too", async () => {
    const head = `POST /servers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const { ms } = await slowClient(head, "x".repeat(100));
    expect(ms).toBeLessThan(3_000);
  });
});
