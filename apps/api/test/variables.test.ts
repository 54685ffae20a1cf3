import { describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import {
  expectCreated,
  expectInvalid,
  expectNoContent,
  expectProblem,
  expectStatus,
  ID,
  TIMESTAMP,
} from "./support/problems.js";
import { byId, createVariable, fetchRecord, unknownId, variableWrite } from "./support/records.js";

// Variables: spec §4 (GET/POST /variables, PATCH/DELETE /variables/{id}) and docs/api-rules.md §10.

const world = serviceForFile({ alice: "variables" });

describe("ENV variables", () => {
  it("POST /variables answers 201 with Location and the record, value shown", async () => {
    const res = await world.alice.api.post("/variables", {
      variable: { type: "ENV", name: "API_EXAMPLE_COM_REGION", value: "eu-west-1" },
    });
    const variable = res.body.variable;
    expectCreated(res, `/variables/${variable.id}`);
    expect(variable.id).toMatch(ID);
    expect(variable.createdAt).toMatch(TIMESTAMP);
    expect(variable).toEqual({
      id: variable.id,
      createdAt: variable.createdAt,
      updatedAt: variable.createdAt,
      type: "ENV",
      value: "eu-west-1",
      name: "API_EXAMPLE_COM_REGION",
      perCaller: false,
    });
  });

  it("GET /variables/{id} and GET /variables (a plain array of the tenant's variables)", async () => {
    const bob = await world.svc.tenant("bob");
    expect((await bob.api.get("/variables")).body).toEqual({ variables: [] });
    const a = await createVariable(bob.api);
    const b = await createVariable(bob.api, { value: "" });
    await createVariable(world.alice.api);
    const one = await bob.api.get(`/variables/${a.id}`);
    expectStatus(one, 200);
    expect(one.body).toEqual({ variable: a });
    const list = await bob.api.get("/variables");
    expectStatus(list, 200);
    expect(Object.keys(list.body)).toEqual(["variables"]);
    expect(byId(list.body.variables)).toEqual(byId([a, b]));
  });

  it("PATCH {variable: {value}} replaces the value only", async () => {
    const variable = await createVariable(world.alice.api, { value: "old" });
    const res = await world.alice.api.patch(`/variables/${variable.id}`, { variable: { value: "new" } });
    expectStatus(res, 200);
    expect(res.body.variable).toEqual({ ...variable, value: "new", updatedAt: res.body.variable.updatedAt });
    expect(res.body.variable.updatedAt).toMatch(TIMESTAMP);
    expect(await fetchRecord(world.alice.api, `/variables/${variable.id}`, "variable")).toEqual(res.body.variable);
  });

  it("PATCH accepts nothing but value: name and type are unknown fields there", async () => {
    const variable = await createVariable(world.alice.api);
    const paths = expectInvalid(
      await world.alice.api.patch(`/variables/${variable.id}`, {
        variable: { value: "x", name: "RENAMED", type: "SECRET" },
      }),
    );
    expect(paths.sort()).toEqual(["variable.name", "variable.type"]);
    expect(expectInvalid(await world.alice.api.patch(`/variables/${variable.id}`, { variable: {} }))).toEqual([
      "variable.value",
    ]);
    expect(await fetchRecord(world.alice.api, `/variables/${variable.id}`, "variable")).toEqual(variable);
  });

  it("DELETE answers 204 with no body; the variable is gone and its name free", async () => {
    const variable = await createVariable(world.alice.api);
    expectNoContent(await world.alice.api.delete(`/variables/${variable.id}`));
    expectProblem(await world.alice.api.get(`/variables/${variable.id}`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.delete(`/variables/${variable.id}`), 404, "NOT_FOUND");
    expectProblem(
      await world.alice.api.patch(`/variables/${variable.id}`, { variable: { value: "x" } }),
      404,
      "NOT_FOUND",
    );
    expectStatus(await world.alice.api.post("/variables", { variable: variableWrite({ name: variable.name }) }), 201);
  });
});

describe("SECRET variables", () => {
  it('a SECRET value is never returned: "***" on create, get, list and update; stored encrypted', async () => {
    const plain = "ghp_super-secret-token-value";
    const res = await world.alice.api.post("/variables", {
      variable: { type: "SECRET", name: "API_GITHUB_COM_TOKEN", value: plain },
    });
    expectStatus(res, 201);
    const variable = res.body.variable;
    expect(variable).toMatchObject({ type: "SECRET", value: "***", name: "API_GITHUB_COM_TOKEN" });
    const got = await world.alice.api.get(`/variables/${variable.id}`);
    expect(got.body.variable.value).toBe("***");
    const list = await world.alice.api.get("/variables");
    expect(list.body.variables.find((v: { id: string }) => v.id === variable.id).value).toBe("***");
    for (const text of [res.text, got.text, list.text]) expect(text).not.toContain(plain);
    const stored = await world.svc.inspect((tx) => tx.findVariable(variable.id));
    expect(stored?.value).not.toContain(plain);
    expect(stored?.value).not.toBe("");

    const patched = await world.alice.api.patch(`/variables/${variable.id}`, { variable: { value: "rotated-secret" } });
    expectStatus(patched, 200);
    expect(patched.body.variable.value).toBe("***");
    expect(patched.text).not.toContain("rotated-secret");
    const rotated = await world.svc.inspect((tx) => tx.findVariable(variable.id));
    expect(rotated?.value).not.toBe(stored?.value);
    expect(rotated?.value).not.toContain("rotated-secret");
  });
});

describe("validation", () => {
  it.each([
    ["type unknown", { type: "PLAIN" }, "variable.type"],
    ["type missing", { type: undefined }, "variable.type"],
    ["name missing", { name: undefined }, "variable.name"],
    ["name starting with a digit", { name: "1ABC" }, "variable.name"],
    ["name with a dash", { name: "MY-VAR" }, "variable.name"],
    ["name over 128", { name: `A${"B".repeat(128)}` }, "variable.name"],
    ["value missing", { value: undefined }, "variable.value"],
    ["value not a string", { value: 42 }, "variable.value"],
    ["value over 64 KiB", { value: "é".repeat(32 * 1024 + 1) }, "variable.value"],
    ["unknown field", { secret: true }, "variable.secret"],
  ])("%s answers 400 at %s", async (_label, fields, path) => {
    expect(expectInvalid(await world.alice.api.post("/variables", { variable: variableWrite(fields) }))).toEqual([
      path,
    ]);
  });

  it("every problem is reported together; limits are inclusive", async () => {
    const paths = expectInvalid(
      await world.alice.api.post("/variables", { variable: { type: "X", name: "-", value: null } }),
    );
    expect(paths.sort()).toEqual(["variable.name", "variable.type", "variable.value"]);
    await createVariable(world.alice.api, { name: `_${"a".repeat(127)}`, value: "v".repeat(64 * 1024) });
    await createVariable(world.alice.api, { name: "lower_case_ok", type: "SECRET", value: "" });
  });

  it("output-only fields are ignored", async () => {
    const res = await world.alice.api.post("/variables", {
      variable: variableWrite({ id: "AAAAAAAAAAA", createdAt: "2000-01-01T00:00:00.000Z", updatedAt: "x" }),
    });
    expectStatus(res, 201);
    expect(res.body.variable.id).not.toBe("AAAAAAAAAAA");
    expect(res.body.variable.createdAt).not.toBe("2000-01-01T00:00:00.000Z");
  });

  it("a variable name is unique per tenant (409 ALREADY_EXISTS), whatever the type; other tenants may use it", async () => {
    const variable = await createVariable(world.alice.api);
    expectProblem(
      await world.alice.api.post("/variables", { variable: variableWrite({ name: variable.name, type: "SECRET" }) }),
      409,
      "ALREADY_EXISTS",
    );
    const bob = await world.svc.tenant("bob");
    await createVariable(bob.api, { name: variable.name });
  });

  it("unknown ids answer 404, malformed ids 400", async () => {
    expectProblem(await world.alice.api.get(`/variables/${unknownId()}`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.delete(`/variables/${unknownId()}`), 404, "NOT_FOUND");
    expect(expectInvalid(await world.alice.api.get("/variables/x"))).toEqual(["id"]);
    expect(expectInvalid(await world.alice.api.patch("/variables/x", { variable: { value: "v" } }))).toEqual(["id"]);
  });
});

describe("conditional writes (issue 10)", () => {
  it("GET and PATCH answer an ETag; If-Match on PATCH: 412 on any mismatch (nothing changes), applied on match", async () => {
    const variable = await createVariable(world.alice.api, { value: "v1" });
    const read = await world.alice.api.get(`/variables/${variable.id}`);
    expectStatus(read, 200);
    const tag = read.headers.get("etag");
    expect(tag).toMatch(/^W\/"\d+"$/);
    // The probe's seven non-matching tags, every one answered 200 before.
    for (const wrong of ['W/"1"', '"0"', 'W/"999999999999999"', "nonsense", 'W/"abc"', "W/", '"-1"']) {
      const res = await world.alice.api.patch(
        `/variables/${variable.id}`,
        { variable: { value: "lost" } },
        { "if-match": wrong },
      );
      expectProblem(res, 412, "PRECONDITION_FAILED");
    }
    expect((await fetchRecord(world.alice.api, `/variables/${variable.id}`, "variable")).value).toBe("v1");
    const applied = await world.alice.api.patch(
      `/variables/${variable.id}`,
      { variable: { value: "v2" } },
      { "if-match": tag! },
    );
    expectStatus(applied, 200);
    expect(applied.body.variable.value).toBe("v2");
    const next = applied.headers.get("etag");
    expect(next).toMatch(/^W\/"\d+"$/);
    expect(next).not.toBe(tag);
    // The old tag no longer matches: a second writer holding it loses instead of overwriting.
    const stale = await world.alice.api.patch(
      `/variables/${variable.id}`,
      { variable: { value: "v3" } },
      { "if-match": tag! },
    );
    expectProblem(stale, 412, "PRECONDITION_FAILED");
    expectStatus(
      await world.alice.api.patch(`/variables/${variable.id}`, { variable: { value: "v4" } }, { "if-match": "*" }),
      200,
    );
  });

  it("If-Match on DELETE: 412 on mismatch (the variable stays), 204 on match", async () => {
    const variable = await createVariable(world.alice.api);
    expectProblem(
      await world.alice.api.delete(`/variables/${variable.id}`, { "if-match": 'W/"1"' }),
      412,
      "PRECONDITION_FAILED",
    );
    const tag = (await world.alice.api.get(`/variables/${variable.id}`)).headers.get("etag")!;
    expectNoContent(await world.alice.api.delete(`/variables/${variable.id}`, { "if-match": tag }));
    expectProblem(await world.alice.api.get(`/variables/${variable.id}`), 404, "NOT_FOUND");
  });
});
