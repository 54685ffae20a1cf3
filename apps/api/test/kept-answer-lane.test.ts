import { ALL_SCOPES, type Actor } from "@mcpsm/domain";
import { Exit } from "effect";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { type AppDeps, createRequestHandler } from "../src/app.js";
import { createServiceMetrics } from "../src/operations/metrics.js";
import { createRateLimiter, type RateLimiter } from "../src/security/rate-limit.js";
import { listenOnLoopback, type Loopback } from "./support/loopback.js";

// The kept-answer lane (src/http/kept-answer-lane.ts) answers a kept GET /servers/{id} without the middleware
// stack. Each case runs one world twice, the lane on (as the service wires it) and off (every request through
// the stack), and compares what callers get and what the limits drew. Storage, the use case and the verifier
// are stubs: a cached graph of tenant t1 and its answer, a verifier that knows two tokens.

const ID = "00000000-0000-4000-8000-000000000001";
const OWNER: Actor = { tenant: "t1", scopes: new Set(ALL_SCOPES), sub: "owner", clientId: undefined };
const STRANGER: Actor = { tenant: "t2", scopes: new Set(ALL_SCOPES), sub: "stranger", clientId: undefined };
const READLESS: Actor = { tenant: "t1", scopes: new Set<string>(), sub: "readless", clientId: undefined };
const ACTORS: Record<string, Actor> = { owner: OWNER, stranger: STRANGER, readless: READLESS };
const GRAPH = { server: { tenant: "t1" } };
const BODY = { server: { id: ID, name: "kept", tools: Array.from({ length: 40 }, (_, i) => ({ id: `t${i}` })) } };

/** Headers that differ between any two answers (the two worlds' rate-limit windows began at different times). */
const VOLATILE = new Set(["date", "x-request-id", "keep-alive", "ratelimit-reset"]);

interface World {
  readonly api: Loopback;
  /** Calls of the stack's `verify` and of the use case (the lane makes neither). */
  readonly calls: { verify: number; useCase: number };
  /** Budgets drawn, by scope. */
  readonly drawn: { address: number; tenant: number };
}

const worlds: Array<World> = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.api.close();
});

const start = async (
  lane: boolean,
  rule = { points: 1_000, burst: 0, windowSeconds: 60 },
  tenantRule = rule,
): Promise<World> => {
  const logger = pino({ level: "silent" });
  const calls = { verify: 0, useCase: 0 };
  const drawn = { address: 0, tenant: 0 };
  const limiter = createRateLimiter({ enabled: true, keyPrefix: "lane", address: rule, tenant: tenantRule }, logger);
  const counted: RateLimiter = {
    ...(limiter as RateLimiter),
    consume: (scope, key) => {
      drawn[scope] += 1;
      return (limiter as RateLimiter).consume(scope, key);
    },
  };
  const deps: AppDeps = {
    runtime: {
      runPromiseExit: async () => {
        calls.useCase += 1;
        return Exit.succeed({ status: 200, body: BODY, version: 3 });
      },
    } as unknown as AppDeps["runtime"],
    verifier: {
      verify: async (token) => {
        calls.verify += 1;
        return ACTORS[token] ?? OWNER;
      },
      verified: (token) => ACTORS[token],
    },
    logger,
    ready: async () => true,
    rateLimiter: counted,
    cachedServerGraph: (id) => (id === ID ? (GRAPH as never) : undefined),
    ...(lane ? { observeKeptAnswer: createServiceMetrics().observeRequest } : {}),
  };
  const world = { api: await listenOnLoopback(createRequestHandler(deps)), calls, drawn };
  worlds.push(world);
  return world;
};

const get = async (world: World, token: string, path = `/servers/${ID}`, requestId?: string) => {
  const sent = {
    authorization: `Bearer ${token}`,
    ...(requestId === undefined ? {} : { "x-request-id": requestId }),
  };
  const res = await fetch(`${world.api.url}${path}`, { headers: sent });
  const headers = [...res.headers].filter(([name]) => !VOLATILE.has(name));
  return { status: res.status, text: await res.text(), headers, requestId: res.headers.get("x-request-id") };
};

describe("the kept-answer lane", () => {
  it("answers a kept GET with the stack's bytes and headers, without the stack", async () => {
    const [withLane, stackOnly] = [await start(true), await start(false)];
    for (const world of [withLane, stackOnly]) expect((await get(world, "owner")).status).toBe(200); // keeps it
    const [fromLane, fromStack] = [await get(withLane, "owner"), await get(stackOnly, "owner")];
    expect(fromLane).toEqual({ ...fromStack, requestId: fromLane.requestId });
    expect(fromLane.text).toBe(JSON.stringify(BODY));
    expect(fromLane.requestId).toMatch(/^[0-9a-f-]{36}$/);
    // The first GET ran the use case in both; the second went through the stack (verify) only without the lane.
    expect(withLane.calls).toEqual({ verify: 1, useCase: 1 });
    expect(stackOnly.calls).toEqual({ verify: 2, useCase: 1 });
  });

  it("leaves every other caller to the stack: another tenant, a token without the scope, an unknown token", async () => {
    const [withLane, stackOnly] = [await start(true), await start(false)];
    for (const world of [withLane, stackOnly]) await get(world, "owner");
    for (const token of ["stranger", "readless", "never-verified"]) {
      // One request id for both: problems name it in their body.
      const path = `/servers/${ID}`;
      const [fromLane, fromStack] = [await get(withLane, token, path, token), await get(stackOnly, token, path, token)];
      expect(fromLane).toEqual(fromStack);
    }
    expect(withLane.calls).toEqual(stackOnly.calls);
  });

  it("leaves a path with anything to decode or a query to the stack", async () => {
    const world = await start(true);
    await get(world, "owner");
    await get(world, "owner", `/servers/${ID}?x=1`);
    await get(world, "owner", `/servers/${ID.replace("-", "%2D")}`);
    expect(world.calls.verify).toBe(3);
  });

  it("draws each budget once, and a refusal is the stack's 429", async () => {
    const rule = { points: 3, burst: 0, windowSeconds: 60 };
    const [withLane, stackOnly] = [await start(true, rule), await start(false, rule)];
    for (const world of [withLane, stackOnly]) await get(world, "owner"); // keeps it: 2 left
    const answers = async (world: World) => {
      const seen: Array<[number, string]> = [];
      for (let i = 0; i < 3; i++) {
        const { status, headers } = await get(world, "owner");
        seen.push([status, headers.find(([name]) => name === "ratelimit-remaining")?.[1] ?? ""]);
      }
      return seen;
    };
    const [fromLane, fromStack] = [await answers(withLane), await answers(stackOnly)];
    expect(fromLane).toEqual([
      [200, "1"],
      [200, "0"],
      [429, "0"],
    ]);
    expect(fromLane).toEqual(fromStack);
    // The refused request was drawn by the lane and handed over: the stack used that decision.
    expect(withLane.drawn).toEqual(stackOnly.drawn);
    expect(withLane.drawn).toEqual({ address: 4, tenant: 3 });
  });

  it("shows whichever budget is lower, as the stack does", async () => {
    const low = { points: 5, burst: 0, windowSeconds: 60 };
    const high = { points: 50, burst: 0, windowSeconds: 30 };
    for (const [address, tenant] of [
      [low, high],
      [high, low],
    ] as const) {
      const [withLane, stackOnly] = [await start(true, address, tenant), await start(false, address, tenant)];
      for (const world of [withLane, stackOnly]) await get(world, "owner"); // keeps it
      const [fromLane, fromStack] = [await get(withLane, "owner"), await get(stackOnly, "owner")];
      expect(fromLane).toEqual({ ...fromStack, requestId: fromLane.requestId });
      // The lower budget's, whichever limit it is.
      expect(fromLane.headers).toContainEqual(["ratelimit-policy", "5;w=60"]);
      expect(withLane.calls.verify).toBe(1);
    }
  });
});
