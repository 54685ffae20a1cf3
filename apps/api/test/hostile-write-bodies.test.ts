import { describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import { expectInvalid, expectProblem } from "./support/problems.js";
import { createProvider, createVariable, providerWrite, variableWrite } from "./support/records.js";

// The smaller holes of issue 10 that hostile write bodies found: repeated keys, answers that grow with the
// body, and control characters in names.

const world = serviceForFile({ alice: "hostile-bodies" });

describe("repeated keys", () => {
  it('{"type":"SECRET","type":"ENV"} is refused (400 naming the key), not stored as a readable ENV variable', async () => {
    const name = variableWrite().name;
    const body = `{"variable":{"type":"SECRET","name":"${name}","value":"s3cret","type":"ENV"}}`;
    const res = await world.alice.api.request("POST", "/variables", {
      body,
      headers: { "content-type": "application/json" },
    });
    expectProblem(res, 400, "INVALID_ARGUMENT");
    expect(res.body.errors).toEqual([
      { path: "variable.type", message: "the key appears more than once in its object" },
    ]);
    expect((await world.alice.api.get("/variables")).body.variables.map((v: { name: string }) => v.name)).not.toContain(
      name,
    );
  });

  it("is found wherever it is, whatever escape spells it, and in every write (PATCH too)", async () => {
    const provider = await createProvider(world.alice.api);
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ["PATCH", `/providers/${provider.id}`, '{"provider":{"name":"a","\\u006eame":"b"}}'],
      ["POST", "/servers", '{"server":{"name":"s","providers":[{"id":"x","tools":[]},{"id":"y","id":"z"}]}}'],
      ["POST", "/servers", '{"server":{"name":"s"},"server":{"name":"t"}}'],
    ];
    const paths = [];
    for (const [method, path, body] of cases) {
      const res = await world.alice.api.request(method, path, {
        body,
        headers: { "content-type": "application/json" },
      });
      expectProblem(res, 400, "INVALID_ARGUMENT");
      paths.push(res.body.errors[0].path);
    }
    expect(paths).toEqual(["provider.name", "server.providers[1].id", "server"]);
  });

  it("is found inside an import's description too, which the reader parses (off the event loop)", async () => {
    const document = `{"openapi":"3.0.3","info":{"title":"t","version":"1","title":"u"},"paths":{"/a":{"get":{}}}}`;
    const send = (body: string) =>
      world.alice.api.request("POST", "/providers/import", { body, headers: { "content-type": "application/json" } });
    const repeated = await send(`\ufeff{"import":{"dryRun":true,"document":${document}}}`);
    expectProblem(repeated, 400, "INVALID_ARGUMENT");
    expect(repeated.body.errors).toEqual([
      { path: "import.document.info.title", message: "the key appears more than once in its object" },
    ]);
    const malformed = await send(`{"import":{"document":{"openapi":"3.0.3",,},"dryRun":true}}`);
    expectProblem(malformed, 400, "INVALID_ARGUMENT");
    expect(malformed.body.errors).toEqual([{ path: "", message: "the request body is not valid JSON" }]);
    const envelope = await send(`{"import":{"dryRun":true,"document":{"openapi":"3.0.3"},"dryRun":false}}`);
    expect(envelope.body.errors).toEqual([
      { path: "import.dryRun", message: "the key appears more than once in its object" },
    ]);
  });

  it("the same key in different objects is fine", async () => {
    const body = JSON.stringify({ variable: { ...variableWrite(), type: "ENV" } }).replace("}}", ',"x":{"type":1}}}');
    // Refused for the unknown field `x`, not for `type` appearing twice in different objects.
    const res = await world.alice.api.request("POST", "/variables", {
      body,
      headers: { "content-type": "application/json" },
    });
    expect(expectInvalid(res)).toEqual(["variable.x"]);
  });
});

describe("answers do not grow with the body", () => {
  it("60,000 unknown fields (0.9 MB): 400 with the first 100 problems and errorCount, a few KB", async () => {
    const fields = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`field${i}`, 1]));
    const res = await world.alice.api.post("/providers", { provider: { ...providerWrite(), ...fields } });
    expectProblem(res, 400, "INVALID_ARGUMENT");
    expect(res.body.errors).toHaveLength(100);
    expect(res.body.errors[0]).toEqual({ path: "provider.field0", message: "unknown field" });
    expect(res.body.errorCount).toBe(60_000);
    expect(res.text.length).toBeLessThan(16 * 1024);
  });

  it("40,000 bad items deep inside (0.9 MB): a small 400", async () => {
    const headers = Array.from({ length: 40_000 }, () => ({ key: "", value: 1 }));
    const provider = await createProvider(world.alice.api);
    const res = await world.alice.api.post(`/providers/${provider.id}/tools`, {
      tool: { name: "many", method: "GET", path: "/x", headers },
    });
    expectProblem(res, 400, "INVALID_ARGUMENT");
    expect(res.text.length).toBeLessThan(16 * 1024);
  });
});

describe("control characters", () => {
  it('"a\\r\\nb" as a name is refused (it was 201)', async () => {
    const res = await world.alice.api.post("/providers", { provider: providerWrite({ name: "a\r\nb" }) });
    expect(expectInvalid(res)).toEqual(["provider.name"]);
    const variable = await createVariable(world.alice.api);
    expect(variable.id).toBeDefined();
  });
});
