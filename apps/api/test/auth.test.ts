import { randomUUID } from "node:crypto";
import { ALL_SCOPES } from "@mcpsm/domain";
import { exportSPKI, generateKeyPair, importJWK, type JWK, type JWTPayload, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_AUDIENCE, DEV_ISSUER, devSigningKey } from "../src/auth/dev-auth.js";
import { type Res, startTestService, type TestService } from "./support/harness.js";
import { expectInvalid, expectProblem, expectStatus } from "./support/problems.js";
import { createServer, createToken, unknownId } from "./support/records.js";

// docs/api-rules.md §3: JWT access tokens are verified (signature by the key set, iss, aud, exp, nbf, only
// RS256/ES256/EdDSA); anything else is 401. Then the order of checks: 401 → 403 → 400 → 404.

let svc: TestService;
let privateJwk: JWK;
let publicJwk: JWK;
const tenant = `auth-${randomUUID()}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  svc = await startTestService();
  ({ privateJwk, publicJwk } = await devSigningKey(svc.dataDir));
});
afterAll(() => svc?.close());

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Claims of a token the service would accept. */
const goodClaims = (): JWTPayload => ({
  iss: DEV_ISSUER,
  aud: DEV_AUDIENCE,
  sub: tenant,
  iat: nowSeconds(),
  exp: nowSeconds() + 600,
  scope: ALL_SCOPES.join(" "),
});

/** Signs `claims` with the dev key (ES256), as the dev-auth issuer does. */
const signWithDevKey = async (claims: JWTPayload, header: Record<string, unknown> = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: privateJwk.kid ?? "", typ: "at+jwt", ...header })
    .sign(await importJWK(privateJwk, "ES256"));

const without = (claims: JWTPayload, name: keyof JWTPayload): JWTPayload => {
  const { [name]: _dropped, ...rest } = claims;
  return rest;
};

const getServers = (token: string | undefined, headers?: Record<string, string>) =>
  svc.client(token).get("/servers", headers);

/** A 401 with the challenge of docs/api-rules.md §2. */
const expectUnauthenticated = (res: Res) => {
  expectProblem(res, 401, "UNAUTHENTICATED");
  expect(res.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
  expect(res.body.servers).toBeUndefined();
};

describe("a valid dev-auth token", () => {
  it("is accepted (the control for every rejection below)", async () => {
    const res = await getServers(await signWithDevKey(goodClaims()));
    expectStatus(res, 200);
    expect(res.body).toEqual({ servers: [] });
  });

  it("may carry its scopes in `scp`, as an array or a string", async () => {
    const asArray = await signWithDevKey({ ...without(goodClaims(), "scope"), scp: ["server:list"] });
    expectStatus(await getServers(asArray), 200);
    const asString = await signWithDevKey({ ...without(goodClaims(), "scope"), scp: "variable:list server:list" });
    expectStatus(await getServers(asString), 200);
  });

  it("is accepted with the scheme name in any case", async () => {
    const token = await signWithDevKey(goodClaims());
    expectStatus(await svc.client().get("/servers", { authorization: `bearer ${token}` }), 200);
    expectStatus(await svc.client().get("/servers", { authorization: `BEARER ${token}` }), 200);
  });
});

describe("rejected credentials answer 401 with WWW-Authenticate", () => {
  it("no Authorization header", async () => {
    expectUnauthenticated(await getServers(undefined));
  });

  it("another scheme, or Bearer without a token", async () => {
    const token = await signWithDevKey(goodClaims());
    expectUnauthenticated(
      await svc.client().get("/servers", { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }),
    );
    expectUnauthenticated(await svc.client().get("/servers", { authorization: "Bearer" }));
    expectUnauthenticated(await svc.client().get("/servers", { authorization: "Bearer " }));
    expectUnauthenticated(await svc.client().get("/servers", { authorization: token }));
  });

  it("an expired token", async () => {
    const claims = { ...goodClaims(), iat: nowSeconds() - 7200, exp: nowSeconds() - 60 };
    const res = await getServers(await signWithDevKey(claims));
    expectUnauthenticated(res);
    expect(res.body.detail).toContain("expired");
  });

  it("a token not yet valid (nbf in the future)", async () => {
    expectUnauthenticated(await getServers(await signWithDevKey({ ...goodClaims(), nbf: nowSeconds() + 600 })));
  });

  it("a wrong issuer", async () => {
    expectUnauthenticated(await getServers(await signWithDevKey({ ...goodClaims(), iss: "https://evil.example" })));
  });

  it("a wrong audience", async () => {
    expectUnauthenticated(await getServers(await signWithDevKey({ ...goodClaims(), aud: "another-api" })));
  });

  it("no exp claim", async () => {
    expectUnauthenticated(await getServers(await signWithDevKey(without(goodClaims(), "exp"))));
  });

  it("no tenant claim (sub)", async () => {
    expectUnauthenticated(await getServers(await signWithDevKey(without(goodClaims(), "sub"))));
    expectUnauthenticated(await getServers(await signWithDevKey({ ...goodClaims(), sub: "" })));
  });

  it("an unsigned token (alg: none)", async () => {
    const unsigned = `${b64url({ alg: "none", typ: "JWT" })}.${b64url(goodClaims())}.`;
    expectUnauthenticated(await getServers(unsigned));
    const noneWithKid = `${b64url({ alg: "none", kid: privateJwk.kid })}.${b64url(goodClaims())}.`;
    expectUnauthenticated(await getServers(noneWithKid));
  });

  it("an HS256 token signed with the public key as HMAC secret", async () => {
    const header = { alg: "HS256", kid: privateJwk.kid ?? "", typ: "at+jwt" };
    const publicKey = await importJWK(publicJwk, "ES256");
    const secrets = [
      new TextEncoder().encode(JSON.stringify(publicJwk)),
      new TextEncoder().encode(await exportSPKI(publicKey as Parameters<typeof exportSPKI>[0])),
      Buffer.from(publicJwk.x ?? "", "base64url"),
    ];
    for (const secret of secrets) {
      const forged = await new SignJWT(goodClaims()).setProtectedHeader(header).sign(secret);
      expectUnauthenticated(await getServers(forged));
    }
  });

  it("a token signed by another ES256 key, even under the dev key's kid", async () => {
    const other = await generateKeyPair("ES256");
    for (const kid of [privateJwk.kid ?? "", "another-key"]) {
      const token = await new SignJWT(goodClaims())
        .setProtectedHeader({ alg: "ES256", kid, typ: "at+jwt" })
        .sign(other.privateKey);
      expectUnauthenticated(await getServers(token));
    }
  });

  it("a token signed by an RS256 or EdDSA key the service does not know", async () => {
    for (const alg of ["RS256", "EdDSA"] as const) {
      const other = await generateKeyPair(alg);
      const token = await new SignJWT(goodClaims())
        .setProtectedHeader({ alg, kid: privateJwk.kid ?? "" })
        .sign(other.privateKey);
      expectUnauthenticated(await getServers(token));
    }
  });

  it("a valid token whose payload was changed after signing", async () => {
    const [header, , signature] = (await signWithDevKey(goodClaims())).split(".");
    const tampered = `${header}.${b64url({ ...goodClaims(), sub: "someone-else" })}.${signature}`;
    expectUnauthenticated(await getServers(tampered));
  });

  it("garbage", async () => {
    for (const garbage of ["garbage", "a.b.c", "eyJhbGciOiJFUzI1NiJ9.e30.AAAA", "x".repeat(5000)])
      expectUnauthenticated(await getServers(garbage));
  });

  it("a server token (mcps_...) used as an access token", async () => {
    const owner = await svc.tenant("owner");
    const server = await createServer(owner.api);
    const token = await createToken(owner.api, server.id);
    expect(token.value).toMatch(/^mcps_/);
    expectUnauthenticated(await getServers(token.value));
    expectUnauthenticated(await svc.client(token.value).get(`/servers/${server.id}`));
    expectUnauthenticated(await svc.client(token.value).get(`/servers/${server.id}/tokens`));
  });

  it("401 is answered on every kind of route, before anything else", async () => {
    const anonymous = svc.client();
    expectUnauthenticated(
      await anonymous.post("/providers", { provider: { name: "x", baseURL: "https://x.example" } }),
    );
    expectUnauthenticated(await anonymous.patch(`/variables/${unknownId()}`, { variable: { value: "x" } }));
    expectUnauthenticated(await anonymous.delete(`/servers/${unknownId()}/tokens/${unknownId()}`));
  });
});

describe("order of checks: 401 → 403 → 400 → 404", () => {
  it("no token to an unknown id answers 401, not 404", async () => {
    const anonymous = svc.client();
    expectUnauthenticated(await anonymous.get(`/servers/${unknownId()}`));
    expectUnauthenticated(await anonymous.get(`/providers/${unknownId()}`));
    expectUnauthenticated(await anonymous.delete(`/variables/${unknownId()}`));
  });

  it("no token with a malformed id or body answers 401, not 400", async () => {
    const anonymous = svc.client();
    expectUnauthenticated(await anonymous.get("/servers/bad"));
    expectUnauthenticated(await anonymous.post("/servers", "{not json"));
    expectUnauthenticated(
      await anonymous.request("POST", "/servers", { body: "x", headers: { "content-type": "text/plain" } }),
    );
  });

  it("a token lacking the scope with an invalid body answers 403, not 400 or 415", async () => {
    const listOnly = svc.client(await svc.token(tenant, ["server:list"]));
    for (const res of [
      await listOnly.post("/servers", "{not json"),
      await listOnly.post("/servers", { server: { name: "", bogus: 1 } }),
      await listOnly.request("POST", "/servers", { body: "x", headers: { "content-type": "text/plain" } }),
      await listOnly.patch("/servers/bad", { server: { nme: "x" } }),
    ]) {
      expectProblem(res, 403, "PERMISSION_DENIED");
      expect(res.headers.get("www-authenticate")).toMatch(/scope="server:(create|update)"/);
    }
  });

  it("a token lacking the scope for an unknown id answers 403, not 404", async () => {
    const listOnly = svc.client(await svc.token(tenant, ["server:list"]));
    expectProblem(await listOnly.get(`/servers/${unknownId()}`), 403, "PERMISSION_DENIED");
    expectProblem(await listOnly.delete(`/providers/${unknownId()}`), 403, "PERMISSION_DENIED");
  });

  it("with the scope, an invalid body to an unknown id answers 400, not 404", async () => {
    const api = svc.client(await svc.token(tenant));
    expect(expectInvalid(await api.patch(`/servers/${unknownId()}`, { server: { name: 7 } }))).toEqual(["server.name"]);
    expect(expectInvalid(await api.patch(`/variables/${unknownId()}`, { variable: {} }))).toEqual(["variable.value"]);
    expectInvalid(await api.post(`/providers/${unknownId()}/tools`, "{"));
  });

  it("with the scope, a malformed child id under an unknown parent answers 400, not 404", async () => {
    const api = svc.client(await svc.token(tenant));
    expect(expectInvalid(await api.get(`/providers/${unknownId()}/tools/bad`))).toEqual(["toolID"]);
    expect(expectInvalid(await api.delete(`/servers/${unknownId()}/tokens/bad`))).toEqual(["tokenID"]);
  });

  it("with the scope, a valid request to an unknown id answers 404", async () => {
    const api = svc.client(await svc.token(tenant));
    expectProblem(await api.patch(`/servers/${unknownId()}`, { server: { name: "fine" } }), 404, "NOT_FOUND");
    expectProblem(await api.patch(`/variables/${unknownId()}`, { variable: { value: "v" } }), 404, "NOT_FOUND");
  });
});

describe("a configured tenant claim", () => {
  let tidService: TestService;
  beforeAll(async () => {
    tidService = await startTestService({ tenantClaim: "tid" });
  });
  afterAll(() => tidService?.close());

  const signFor = async (claims: JWTPayload) => {
    const { privateJwk: key } = await devSigningKey(tidService.dataDir);
    return new SignJWT({
      iss: DEV_ISSUER,
      aud: DEV_AUDIENCE,
      exp: nowSeconds() + 600,
      scope: ALL_SCOPES.join(" "),
      ...claims,
    })
      .setProtectedHeader({ alg: "ES256", kid: key.kid ?? "" })
      .sign(await importJWK(key, "ES256"));
  };

  it("names the tenant: two subjects of one tenant share records, another tenant does not see them", async () => {
    const alice = tidService.client(await signFor({ sub: "alice", tid: "org-1" }));
    const bob = tidService.client(await signFor({ sub: "bob", tid: "org-1" }));
    const eve = tidService.client(await signFor({ sub: "alice", tid: "org-2" }));
    const server = await createServer(alice);
    expectStatus(await bob.get(`/servers/${server.id}`), 200);
    expectProblem(await eve.get(`/servers/${server.id}`), 404, "NOT_FOUND");
  });

  it("a token without that claim answers 401", async () => {
    expectUnauthenticated(await tidService.client(await signFor({ sub: "alice" })).get("/servers"));
  });
});
