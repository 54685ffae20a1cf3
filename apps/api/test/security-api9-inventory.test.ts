import { openApiDocument } from "@mcpsm/openapi";
import { beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../src/http/route-table.js";
import { serviceForFile } from "./support/file-service.js";
import { expectProblem } from "./support/problems.js";
import { makeRouteFixture, type RouteFixture } from "./support/route-fixture.js";

// OWASP API9:2023 Improper Inventory Management: every route the service answers is in the OpenAPI document,
// and nothing else answers. The harness checks every answer against the document (an undeclared status, a
// 2xx on a path the document lacks, or a 405 whose Allow differs from the documented methods fails), so
// sending every method to every documented path, and a list of likely undocumented paths, is the test.
// HEAD mirrors GET wherever GET exists (HTTP requires it); it is the one method the document leaves implicit.
// The MCP runtime's own paths (/mcp/{serverId} and its RFC 9728 metadata, which answers CORS preflights for
// browser clients by design) follow the MCP specification and are left out of the method sweep.

const world = serviceForFile({ owner: "inventory" });
let fixture: RouteFixture;
const doc = openApiDocument();

beforeAll(async () => {
  fixture = await makeRouteFixture(world.owner.api);
});

const isMcpPath = (template: string) =>
  template.startsWith("/mcp/") || template.startsWith("/.well-known/oauth-protected-resource/");

/** A documented path with its parameters filled from the fixture (every id exists, so 2xx is possible). */
const concrete = (template: string): string =>
  template
    .replace("/servers/{id}", `/servers/${fixture.S}`)
    .replace("/providers/{id}", `/providers/${fixture.P2}`)
    .replace("/variables/{id}", `/variables/${fixture.V}`)
    .replace("{toolID}", fixture.T3)
    .replace("{promptID}", fixture.Pr2)
    .replace("{resourceID}", fixture.R2)
    .replace("{tokenID}", fixture.K)
    .replace("{serverId}", fixture.S)
    .replace("{asset}", "swagger-ui.css");

describe("the document and the service agree", () => {
  it("every management route of the service is in the document under its method, and the reverse", () => {
    const served = ROUTES.map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, "{$1}")}`).sort();
    const documented = Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[] }>>)
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, op]) => (op.security ?? []).length > 0 && !path.startsWith("/mcp/"))
          .map(([method]) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    expect(served).toEqual(documented);
  });

  it("every method on every documented path answers as documented (an undocumented method is 405)", async () => {
    let requests = 0;
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    for (const template of Object.keys(doc.paths)) {
      if (isMcpPath(template)) continue;
      for (const method of methods) {
        const documented = method.toLowerCase() in doc.paths[template];
        // Documented writes are exercised by the rest of the suite; here only the undocumented ones and reads.
        if (documented && method !== "GET") continue;
        await world.owner.api.request(method, concrete(template));
        requests++;
      }
    }
    expect(requests).toBeGreaterThan(60);
  });

  it("HEAD answers exactly where GET does, with GET's status and no body; OPTIONS is a 405 like any undocumented method", async () => {
    for (const template of Object.keys(doc.paths)) {
      if (isMcpPath(template)) continue;
      const url = `${world.svc.url}${concrete(template)}`;
      const headers = { authorization: `Bearer ${world.owner.token}` };
      const head = await fetch(url, { method: "HEAD", headers });
      const get = await fetch(url, { headers });
      await get.arrayBuffer();
      expect(head.status, template).toBe("get" in doc.paths[template] ? get.status : 405);
      expect(await head.text()).toBe("");
      const options = await world.owner.api.request("OPTIONS", concrete(template));
      expectProblem(options, 405, "METHOD_NOT_ALLOWED");
    }
  });
});

describe("nothing undocumented answers", () => {
  const probes = [
    "/admin",
    "/api",
    "/api/servers",
    "/v1/servers",
    "/v2/servers",
    "/internal/servers",
    "/debug",
    "/debug/vars",
    "/metrics",
    "/status",
    "/health",
    "/actuator/health",
    "/.env",
    "/.git/config",
    "/package.json",
    "/server.js",
    "/swagger.json",
    "/swagger-ui.html",
    "/openapi.yaml",
    "/graphql",
    "/console/",
    "/console/index.html",
    "/console/../package.json",
    "/console/%2e%2e%2fpackage.json",
    "/servers/",
    "/SERVERS",
    "/Servers",
    "/servers.json",
    "/servers;jsessionid=1",
    `/servers/${"A".repeat(11)}/secrets`,
    `/servers/${"A".repeat(11)}/tokens/${"A".repeat(11)}/value`,
    `/variables/${"A".repeat(11)}/value`,
    `/providers/${"A".repeat(11)}/oauth2Config`,
    "/tokens",
    "/users",
    "/tenants",
    "/docs/../package.json",
    "/docs/%2e%2e%2fpackage.json",
    "/docs/index.html",
    // (The OAuth discovery documents are served in dev-auth mode: the service is then its MCP endpoints'
    // authorization server; see mcp-oauth-clients.test.ts.)
    "/.well-known/oauth-authorization-server/anything",
    "/oauth",
  ];

  it(`${probes.length} likely paths answer the document's 404`, async () => {
    for (const path of probes) expectProblem(await world.owner.api.get(path), 404, "NOT_FOUND");
  });
});
