import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SECURITY_SETTINGS, type RateLimitSettings } from "../src/config/security-config.js";
import { startTestService, type TestService } from "./support/harness.js";
import { expectStatus } from "./support/problems.js";

// Issue 16: rate limits on /mcp answer the way MCP clients read them (a JSON-RPC error body with 429 and
// Retry-After), and the per-tenant budget is charged for MCP requests too (to the server's owner).

const rateLimit = (over: Partial<RateLimitSettings>): RateLimitSettings => ({
  ...DEFAULT_SECURITY_SETTINGS.rateLimit,
  enabled: true,
  address: { points: 10_000, windowSeconds: 60, burst: 0 },
  tenant: { points: 10_000, windowSeconds: 60, burst: 0 },
  ...over,
});

/** One `ping` over 2025-era JSON-RPC (no SDK client: the test reads every status and header). */
const ping = (svc: TestService, serverId: string, token: string) =>
  fetch(`${svc.url}/mcp/${serverId}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });

/** A server of a fresh tenant and a server token for it. */
const serverWithToken = async (svc: TestService, label: string) => {
  const owner = await svc.tenant(label);
  const server = await owner.api.post("/servers", { server: { name: `${label} server` } });
  expectStatus(server, 201);
  const token = await owner.api.post(`/servers/${server.body.server.id}/tokens`, { token: { name: "t" } });
  expectStatus(token, 201);
  return { owner, serverId: server.body.server.id as string, token: token.body.token.value as string };
};

const expectJsonRpcRateLimited = async (res: Response) => {
  expect(res.status).toBe(429);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(res.headers.get("ratelimit-remaining")).toBe("0");
  const body = (await res.json()) as { error: { message: string } };
  expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
  expect(body.error.message).toMatch(/too many requests/);
};

describe("/mcp over the per-address limit", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      security: { rateLimit: rateLimit({ address: { points: 8, windowSeconds: 60, burst: 0 } }) },
    });
  });
  afterAll(() => svc?.close());

  it("answers 429 with Retry-After and a JSON-RPC error body (the management API keeps problem+json)", async () => {
    // Setting up takes 4 requests of the 8 (tenant creation makes none over HTTP).
    const { serverId, token } = await serverWithToken(svc, "addr");
    let res = await ping(svc, serverId, token);
    while (res.status === 200) res = await ping(svc, serverId, token);
    await expectJsonRpcRateLimited(res);
    const management = await fetch(`${svc.url}/servers`);
    expect(management.status).toBe(429);
    expect(management.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });
});

describe("/mcp under the per-tenant limit", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      security: { rateLimit: rateLimit({ tenant: { points: 5, windowSeconds: 60, burst: 0 } }) },
    });
  });
  afterAll(() => svc?.close());

  it("charges MCP requests to the server's owner: 429 JSON-RPC once spent, other tenants unaffected", async () => {
    // Two management requests (server, token) of the owner's 5.
    const alice = await serverWithToken(svc, "alice");
    const answers: Array<number> = [];
    for (let i = 0; i < 3; i++) {
      const res = await ping(svc, alice.serverId, alice.token);
      answers.push(res.status);
      expect(res.headers.get("ratelimit-limit")).toBe("5");
      await res.body?.cancel();
    }
    expect(answers).toEqual([200, 200, 200]);
    await expectJsonRpcRateLimited(await ping(svc, alice.serverId, alice.token));
    // The same budget covers the owner's management calls.
    expect((await alice.owner.api.get("/servers")).status).toBe(429);
    const bob = await serverWithToken(svc, "bob");
    const res = await ping(svc, bob.serverId, bob.token);
    expect(res.status).toBe(200);
    await res.body?.cancel();
    // A request that never reaches a server (bad token) is not charged to anyone: 401 as usual.
    const unknown = await ping(svc, alice.serverId, "mcps_not-a-token");
    expect(unknown.status).toBe(401);
  });
});
