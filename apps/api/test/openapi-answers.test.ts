import { MANAGEMENT_ROUTES, type ManagementRoute, problemStatuses } from "@mcpsm/openapi";
import { beforeAll, describe, expect, it } from "vitest";
import type { Client } from "./support/harness.js";
import { serviceForFile } from "./support/file-service.js";
import { expectProblem } from "./support/problems.js";
import { unknownId } from "./support/records.js";

// The problem answers the OpenAPI document declares for every management route, provoked route by route
// (generated from the route list): each one happens, and (through the harness) conforms to the document.

const world = serviceForFile({ alice: "answers" });
let anonymous: Client;

beforeAll(async () => {
  anonymous = world.svc.client();
});

// A `{version}` (of a server revision) is a number, not an id: "1" there; a `{principal}` (of a caller value)
// is `server-token:<id>`: so only the ids are what is probed.
const fill = (route: ManagementRoute, value: () => string) =>
  route.path.replace(/\{([^{}]+)\}/g, (_m, name: string) =>
    name === "version" ? "1" : name === "principal" ? `server-token:${value()}` : value(),
  );
const label = (route: ManagementRoute) => `${route.method} ${route.path}`;
const withBody = MANAGEMENT_ROUTES.filter((r) => r.request !== undefined);
const withIds = MANAGEMENT_ROUTES.filter((r) => r.path.includes("{"));

describe("declared problem answers happen", () => {
  it.each(MANAGEMENT_ROUTES.map((r) => [label(r), r] as const))("%s: 401 without a token", async (_l, route) => {
    expect(problemStatuses(route)).toContain(401);
    const res = await anonymous.request(route.method, fill(route, unknownId), route.request ? { body: {} } : {});
    expectProblem(res, 401, "UNAUTHENTICATED");
  });

  it.each(withBody.map((r) => [label(r), r] as const))("%s: 415, 413 and 400 for bodies", async (_l, route) => {
    expect(problemStatuses(route)).toEqual(expect.arrayContaining([400, 413, 415]));
    const path = fill(route, unknownId);
    expectProblem(
      await world.alice.api.request(route.method, path, { body: "{}", headers: { "content-type": "text/plain" } }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expectProblem(
      await world.alice.api.request(route.method, path, { body: `"${"x".repeat(route.maxBodyBytes ?? 1024 * 1024)}"` }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    expectProblem(await world.alice.api.request(route.method, path, { body: "{" }), 400, "INVALID_ARGUMENT");
  });

  it.each(withIds.map((r) => [label(r), r] as const))("%s: 400 for a malformed id", async (_l, route) => {
    expect(problemStatuses(route)).toEqual(expect.arrayContaining([400, 404]));
    const res = await world.alice.api.request(
      route.method,
      fill(route, () => "not-an-id"),
      route.request ? { body: {} } : {},
    );
    expectProblem(res, 400, "INVALID_ARGUMENT");
  });

  it.each(withIds.filter((r) => r.request === undefined).map((r) => [label(r), r] as const))(
    "%s: 404 for an id that names nothing",
    async (_l, route) => {
      expectProblem(await world.alice.api.request(route.method, fill(route, unknownId)), 404, "NOT_FOUND");
    },
  );

  it("405 for every documented path with a method it does not support", async () => {
    for (const path of new Set(MANAGEMENT_ROUTES.map((r) => r.path))) {
      const res = await world.alice.api.request(
        "PUT",
        path.replace(/\{([^{}]+)\}/g, (_m, name: string) => (name === "version" ? "1" : unknownId())),
      );
      expectProblem(res, 405, "METHOD_NOT_ALLOWED");
    }
  });
});
