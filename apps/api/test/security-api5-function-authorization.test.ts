import { ALL_SCOPES } from "@mcpsm/domain";
import { SCOPE_POLICY } from "@mcpsm/domain/use-cases";
import { beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../src/http/route-table.js";
import { serviceForFile } from "./support/file-service.js";
import { expectProblem, expectStatus } from "./support/problems.js";
import { callFor, makeRouteFixture, type RouteFixture } from "./support/route-fixture.js";

// OWASP API5:2023 Broken Function Level Authorization. scope-matrix.test.ts is the scope matrix: every route
// refuses a token holding every scope but its own (403 naming it, nothing changed) and works with only its own
// scope, and tokens with no management scope (none, or only gitconnection:*) are refused everywhere. Here:
// read-only tokens against every write, and scope spellings that must not grant anything.

const world = serviceForFile({ owner: "functions" });
let fixture: RouteFixture;

beforeAll(async () => {
  fixture = await makeRouteFixture(world.owner.api);
});

// A shape preview is a POST that stores nothing (docs/api-rules.md §19): provider:read suffices.
const writes = ROUTES.filter((r) => r.method !== "GET" && r.operation !== "previewToolShape");
const READ_SCOPES = ALL_SCOPES.filter((s) => /:(list|read)$/.test(s));

describe("a token with every read scope cannot write anything", () => {
  it(`${writes.length} write routes answer 403`, async () => {
    const reader = world.svc.client(await world.svc.token(world.owner.id, READ_SCOPES));
    for (const route of writes) {
      const { path, body } = callFor(route, fixture);
      const res = await reader.request(route.method, path, body === undefined ? {} : { body });
      expectProblem(res, 403, "PERMISSION_DENIED");
      expect(res.headers.get("www-authenticate")).toContain(`scope="${SCOPE_POLICY[route.operation]}"`);
    }
    expectStatus(await world.owner.api.get(`/servers/${fixture.S}`), 200);
  });
});

describe("scope spellings that grant nothing", () => {
  // Each stands where "server:list" would be; GET /servers must stay 403.
  it.each([
    ["upper case", "SERVER:LIST"],
    ["a wildcard", "server:*"],
    ["a global wildcard", "*"],
    ["a longer scope", "server:list2"],
    ["a prefix", "server:lis"],
    ["the resource alone", "server"],
    ["a comma-separated list", "variable:list,server:list"],
    ["white space inside", "server: list"],
    ["an admin-looking scope", "admin"],
  ])("%s (%s)", async (_label, scope) => {
    const api = world.svc.client(await world.svc.token(world.owner.id, [scope]));
    expectProblem(await api.get("/servers"), 403, "PERMISSION_DENIED");
  });

  it("scopes in a claim the service does not read (scopes, permissions, roles) grant nothing", async () => {
    const { SignJWT, importJWK } = await import("jose");
    const { devSigningKey, DEV_AUDIENCE, DEV_ISSUER } = await import("../src/auth/dev-auth.js");
    const { privateJwk } = await devSigningKey(world.svc.dataDir);
    for (const claim of ["scopes", "permissions", "roles", "scopes_granted"]) {
      const token = await new SignJWT({ [claim]: ALL_SCOPES })
        .setProtectedHeader({ alg: "ES256", kid: privateJwk.kid ?? "" })
        .setIssuer(DEV_ISSUER)
        .setAudience(DEV_AUDIENCE)
        .setSubject(world.owner.id)
        .setExpirationTime("5m")
        .sign(await importJWK(privateJwk, "ES256"));
      expectProblem(await world.svc.client(token).get("/servers"), 403, "PERMISSION_DENIED");
    }
  });

  it("method override headers do not turn a permitted GET into a write", async () => {
    const reader = world.svc.client(await world.svc.token(world.owner.id, ["server:read"]));
    for (const header of ["X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"]) {
      const res = await reader.get(`/servers/${fixture.S}`, { [header]: "DELETE" });
      expectStatus(res, 200);
    }
    expectStatus(await world.owner.api.get(`/servers/${fixture.S}`), 200);
  });
});
