import { randomBytes, randomUUID } from "node:crypto";
import { ALL_SCOPES } from "@mcpsm/domain";
import { Redacted } from "effect";
import type { JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { introspectionVerifiers } from "../src/auth/introspection.js";
import { type AuthServer, type SigningKey, signingKey, startAuthServer } from "./support/auth-server.js";
import { type Res, startTestService, type TestService } from "./support/harness.js";
import { plant } from "./support/planted-secrets.js";
import { expectProblem, expectStatus } from "./support/problems.js";
import { createServer, createToken } from "./support/records.js";

// OWASP API2:2023 Broken Authentication. The attacks on JWTs in dev-auth mode (forged signature, expired,
// not yet valid, alg none, HS256 key confusion, foreign keys, wrong issuer/audience, no exp, no tenant,
// tampered payload, garbage, a server token used as an access token, 401 before everything else) are in
// auth.test.ts (24 attacks). This file adds the external authorization server modes: JWKS key rotation
// without restart and its rate limit, an unreachable key set, and opaque tokens by RFC 7662 introspection
// against a real local endpoint.

const AUDIENCE = "mcpsm-api";
const nowSeconds = () => Math.floor(Date.now() / 1000);

const expectUnauthenticated = (res: Res) => {
  expectProblem(res, 401, "UNAUTHENTICATED");
  expect(res.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
};

describe("JWT access tokens from an authorization server's key set (JWKS)", () => {
  let auth: AuthServer;
  let svc: TestService;
  let first: SigningKey;
  const claims = (over: JWTPayload = {}): JWTPayload => ({
    iss: auth.issuer,
    aud: AUDIENCE,
    sub: "jwks-tenant",
    exp: nowSeconds() + 600,
    scope: ALL_SCOPES.join(" "),
    ...over,
  });

  beforeAll(async () => {
    auth = await startAuthServer();
    first = await signingKey("key-1");
    auth.keys = [first];
    // Cooldown 0: every unknown kid may refetch, so the rotation below needs no waiting.
    svc = await startTestService({
      auth: {
        mode: "jwks",
        jwksUrl: new URL(auth.jwksUrl),
        issuer: auth.issuer,
        audience: AUDIENCE,
        tenantClaim: "sub",
        jwksCooldownMs: 0,
      },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await auth?.close();
  });

  it("rotating keys at the authorization server needs no restart: a token under a new kid refetches the set", async () => {
    expectStatus(await svc.client(await auth.sign(first, claims())).get("/servers"), 200);
    const fetchesBefore = auth.hits.jwks;
    const second = await signingKey("key-2");
    auth.keys = [second];
    expectStatus(await svc.client(await auth.sign(second, claims())).get("/servers"), 200);
    expect(auth.hits.jwks).toBe(fetchesBefore + 1);
    // The retired key no longer verifies anything once the new set is loaded.
    expectUnauthenticated(await svc.client(await auth.sign(first, claims())).get("/servers"));
    // A forged token under the current kid, signed by a key the server never published.
    const impostor = { ...(await signingKey("key-2")) };
    expectUnauthenticated(await svc.client(await auth.sign(impostor, claims())).get("/servers"));
  });

  it("a key set that cannot be fetched answers 503 for an unknown kid, while cached keys keep working", async () => {
    const current = auth.keys[0]!;
    auth.down = true;
    try {
      expectStatus(await svc.client(await auth.sign(current, claims())).get("/servers"), 200);
      const unknown = await signingKey("key-unknown");
      expectProblem(await svc.client(await auth.sign(unknown, claims())).get("/servers"), 503, "UNAVAILABLE");
    } finally {
      auth.down = false;
    }
  });

  it("refetching is rate limited: a flood of made-up kids costs the authorization server at most one fetch", async () => {
    const limited = await startTestService({
      auth: {
        mode: "jwks",
        jwksUrl: new URL(auth.jwksUrl),
        issuer: auth.issuer,
        audience: AUDIENCE,
        tenantClaim: "sub",
        jwksCooldownMs: 60_000,
      },
    });
    try {
      expectStatus(await limited.client(await auth.sign(auth.keys[0]!, claims())).get("/servers"), 200);
      const before = auth.hits.jwks;
      for (let i = 0; i < 20; i++) {
        const fake = await signingKey(`made-up-${i}`);
        expectUnauthenticated(await limited.client(await auth.sign(fake, claims())).get("/servers"));
      }
      expect(auth.hits.jwks - before).toBeLessThanOrEqual(1);
    } finally {
      await limited.close();
    }
  });

  it("the usual claim checks hold in this mode too: issuer, audience, expiry, tenant", async () => {
    const key = auth.keys[0]!;
    for (const bad of [
      claims({ iss: "https://evil.example" }),
      claims({ aud: "another-api" }),
      claims({ exp: nowSeconds() - 10 }),
      claims({ sub: undefined }),
    ])
      expectUnauthenticated(await svc.client(await auth.sign(key, bad)).get("/servers"));
  });
});

describe("opaque access tokens by RFC 7662 introspection", () => {
  const clientId = "mcpsm service";
  // Characters that client_secret_basic must form-encode before base64 (RFC 6749 §2.3.1).
  const clientSecret = `intro:spe+cial/&é ${randomBytes(8).toString("hex")}`;
  let auth: AuthServer;
  let svc: TestService;
  const active = (over: Record<string, unknown> = {}) => ({
    active: true,
    iss: auth.issuer,
    aud: [AUDIENCE, "something-else"],
    sub: "opaque-tenant",
    exp: nowSeconds() + 600,
    scope: ALL_SCOPES.join(" "),
    token_type: "Bearer",
    client_id: "some-client",
    ...over,
  });
  const opaque = (script: Parameters<AuthServer["answers"]["set"]>[1]) => {
    const token = `opaque-${randomBytes(20).toString("base64url")}`;
    auth.answers.set(token, script);
    return token;
  };
  const introspectionAuth = (secret: string) =>
    ({
      mode: "introspection",
      introspectionUrl: new URL(auth.introspectionUrl),
      clientId,
      clientSecret: Redacted.make(secret),
      issuer: auth.issuer,
      audience: AUDIENCE,
      tenantClaim: "sub",
    }) as const;

  beforeAll(async () => {
    auth = await startAuthServer({ clientId, clientSecret });
    plant(clientSecret, "client secret");
    svc = await startTestService({ auth: introspectionAuth(clientSecret) });
  });
  afterAll(async () => {
    await svc?.close();
    await auth?.close();
  });

  it("an active token for this audience is accepted, with client_secret_basic, and its answer is reused", async () => {
    const token = opaque({ json: active() });
    const api = svc.client(token);
    expectStatus(await api.get("/servers"), 200);
    const server = await createServer(api);
    expectStatus(await api.get(`/servers/${server.id}`), 200);
    expect(auth.hits.byToken.get(token)).toBe(1);
    expect(auth.authorizations.at(-1)).toMatch(/^Basic /);
  });

  it("concurrent first uses of one token introspect it once", async () => {
    const token = opaque({ json: active() });
    const answers = await Promise.all(Array.from({ length: 8 }, () => svc.client(token).get("/servers")));
    for (const res of answers) expectStatus(res, 200);
    expect(auth.hits.byToken.get(token)).toBe(1);
  });

  it.each([
    ["active: false", { active: false }],
    ["another audience", { aud: "another-api" }],
    ["no audience", { aud: undefined }],
    ["another issuer", { iss: "https://evil.example" }],
    ["expired", { exp: nowSeconds() - 5 }],
    ["no exp", { exp: undefined }],
    ["not yet valid", { nbf: nowSeconds() + 600 }],
    ["a refresh token", { token_type: "refresh_token" }],
    ["no tenant", { sub: undefined }],
  ])("%s → 401", async (_label, over) => {
    expectUnauthenticated(await svc.client(opaque({ json: active(over) })).get("/servers"));
  });

  it("a token the endpoint does not know is inactive → 401", async () => {
    expectUnauthenticated(await svc.client(`unknown-${randomUUID()}`).get("/servers"));
  });

  it.each([
    ["a 500", { status: 500, body: "oops" }],
    ["a redirect", { status: 302, body: "" }],
    ["HTML", { status: 200, body: "<html>active</html>", type: "text/html" }],
    ["'active' as a string", { status: 200, body: '{"active":"true","sub":"x"}' }],
    ["an array", { status: 200, body: "[true]" }],
    ["a body over 64 KiB", { status: 200, body: JSON.stringify({ active: true, pad: "x".repeat(70_000) }) }],
  ])("an endpoint answering %s is treated as down → 503, never an accepted token", async (_label, script) => {
    expectProblem(await svc.client(opaque(script)).get("/servers"), 503, "UNAVAILABLE");
  });

  it("an unreachable endpoint answers 503; a wrong client secret (the endpoint's 401) answers 503, not 401", async () => {
    const token = opaque({ json: active() });
    auth.down = true;
    try {
      expectProblem(await svc.client(token).get("/servers"), 503, "UNAVAILABLE");
    } finally {
      auth.down = false;
    }
    const wrongSecret = await startTestService({ auth: introspectionAuth("not-the-secret") });
    try {
      expectProblem(await wrongSecret.client(opaque({ json: active() })).get("/servers"), 503, "UNAVAILABLE");
    } finally {
      await wrongSecret.close();
    }
  });

  it("a server token is never an access token here either", async () => {
    const owner = svc.client(opaque({ json: active({ sub: `owner-${randomUUID()}` }) }));
    const server = await createServer(owner);
    const serverToken = await createToken(owner, server.id);
    expectUnauthenticated(await svc.client(serverToken.value).get("/servers"));
  });

  it("caching: at most min(60 s, time to exp); a revoked token dies within the minute (clock moved by the test)", async () => {
    let clock = Date.now();
    const { verifier } = introspectionVerifiers({
      url: new URL(auth.introspectionUrl),
      clientId,
      clientSecret,
      issuer: auth.issuer,
      audience: AUDIENCE,
      tenantClaim: "sub",
      now: () => clock,
    });
    const seconds = Math.floor(clock / 1000);
    const shortLived = opaque({ json: active({ exp: seconds + 20 }) });
    const longLived = opaque({ json: active({ exp: seconds + 3600 }) });
    const accepted = async (token: string) => "tenant" in (await verifier.verify(token));
    expect(await accepted(shortLived)).toBe(true);
    expect(await accepted(longLived)).toBe(true);
    clock += 19_000;
    expect(await accepted(shortLived)).toBe(true);
    expect(auth.hits.byToken.get(shortLived)).toBe(1);
    // Past exp: the cached answer is gone and a fresh one would be expired too.
    clock += 2_000;
    expect(await accepted(shortLived)).toBe(false);
    // The long-lived one is revoked at the server; the cached answer serves until 60 s have passed, no longer.
    auth.answers.set(longLived, { json: { active: false } });
    clock += 38_000; // 59 s after the first use
    expect(await accepted(longLived)).toBe(true);
    expect(auth.hits.byToken.get(longLived)).toBe(1);
    clock += 2_000; // 61 s
    expect(await accepted(longLived)).toBe(false);
    expect(auth.hits.byToken.get(longLived)).toBe(2);
  });
});
