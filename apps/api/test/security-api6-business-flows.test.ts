import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SECURITY_SETTINGS } from "../src/config/security-config.js";
import { startTestService, type TestService } from "./support/harness.js";
import { expectProblem } from "./support/problems.js";
import { createServer, serverWrite } from "./support/records.js";

// OWASP API6:2023 Unrestricted Access to Sensitive Business Flows. The flow worth abusing here is minting
// server tokens (each one is a credential to an MCP endpoint that calls other systems with stored secrets),
// and creating records in bulk. Quotas bound how many exist (quotas.test.ts: every quota, and under 6
// concurrent creates); the per-tenant rate limit bounds how fast they are made. Revoked tokens stop working
// on their very next request (packages/mcp-runtime/test/mcp-access.test.ts).

describe("token minting floods", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ quotas: { tokensPerServer: 25, serversPerTenant: 5 } });
  });
  afterAll(() => svc?.close());

  it("60 concurrent mints for one server create exactly the quota (25), each with its own value; the rest 429", async () => {
    const tenant = await svc.tenant("minter");
    const server = await createServer(tenant.api);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        tenant.api.post(`/servers/${server.id}/tokens`, { token: { name: `t${i}` } }),
      ),
    );
    const minted = answers.filter((r) => r.status === 201);
    expect(minted).toHaveLength(25);
    for (const r of answers.filter((a) => a.status !== 201)) expectProblem(r, 429, "RESOURCE_EXHAUSTED");
    const values = minted.map((r) => r.body.token.value as string);
    expect(new Set(values).size).toBe(25);
    // mcps_ and at least 160 bits: 27+ base62 characters.
    for (const value of values) expect(value).toMatch(/^mcps_[A-Za-z0-9]{27,}$/);
    expect((await tenant.api.get(`/servers/${server.id}/tokens`)).body.tokens).toHaveLength(25);
  });

  it("spreading the flood over more servers hits the server quota (5) instead", async () => {
    const tenant = await svc.tenant("spreader");
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => tenant.api.post("/servers", { server: serverWrite() })),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(5);
    for (const r of answers.filter((a) => a.status !== 201)) expectProblem(r, 429, "RESOURCE_EXHAUSTED");
  });
});

describe("the same flood under the per-tenant rate limit", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      security: {
        rateLimit: {
          ...DEFAULT_SECURITY_SETTINGS.rateLimit,
          enabled: true,
          tenant: { points: 10, windowSeconds: 60, burst: 0 },
        },
      },
    });
  });
  afterAll(() => svc?.close());

  it("mints stop at the rate limit (429 with Retry-After) long before any quota", async () => {
    const tenant = await svc.tenant("fast-minter");
    const server = await createServer(tenant.api);
    let created = 0;
    let limited = 0;
    for (let i = 0; i < 30; i++) {
      const res = await tenant.api.post(`/servers/${server.id}/tokens`, { token: { name: `t${i}` } });
      if (res.status === 201) created++;
      else {
        expectProblem(res, 429, "RESOURCE_EXHAUSTED");
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
        limited++;
      }
    }
    // One request of the budget went to creating the server.
    expect(created).toBe(9);
    expect(limited).toBe(21);
  });
});
