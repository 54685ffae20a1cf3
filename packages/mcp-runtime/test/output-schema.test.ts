import { Storage } from "@mcpsm/domain/storage";
import type { Client } from "@modelcontextprotocol/client";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  actorOf,
  connect,
  ERAS,
  makeServices,
  manage,
  type RunningMcp,
  type Services,
  startMcp,
} from "./support/harness.js";
import { startUpstream, type Upstream } from "./support/upstream.js";

// Issue 16, outputSchema: a tool whose upstream answer's schema is known (stored by the OpenAPI import as
// `respBodyJSONSchema`) declares it as `outputSchema` in the shape `structuredContent` takes (an object schema
// as is, an array or scalar wrapped as `{result}`), and a call returns matching `structuredContent` — checked
// by the SDK client itself — or, when the upstream's answer does not match, a tool error saying why.

let services: Services;
let upstream: Upstream;
let mcp: RunningMcp;
let serverId: string;
let token: string;

const ECHO = {
  type: "object",
  properties: { method: { type: "string" }, path: { type: "string" } },
  required: ["method", "path"],
};

beforeAll(async () => {
  services = makeServices();
  upstream = await startUpstream();
  mcp = await startMcp(services, { upstreamAllowedNetworks: ["127.0.0.0/8"] });
  const m = manage(services, actorOf("outputs"));
  const provider = await m.provider({ name: "Typed", baseURL: `http://localhost:${upstream.port}/api/` });
  const t = (name: string, path: string) => m.tool(provider.id, { name, method: "GET", path });
  const tools = {
    matching: await t("matching", "/echo/m"),
    mismatching: await t("mismatching", "/echo/x"),
    array: await t("array", "/array"),
    notJson: await t("notJson", "/text"),
    untyped: await t("untyped", "/echo/u"),
    plain: await t("plain", "/echo/p"),
  };
  // What the import stores for a described answer (respBodyJSONSchema is no management API field).
  const schemas: Record<string, Record<string, unknown>> = {
    matching: ECHO,
    mismatching: { type: "object", required: ["missing"], properties: { missing: { type: "string" } } },
    array: { type: "array", items: { type: "integer" } },
    notJson: { type: "object" },
    untyped: { properties: { method: { type: "string" } } },
  };
  await services.runPromise(
    Effect.flatMap(Storage, (storage) =>
      storage.transaction((tx) =>
        Effect.forEach(Object.entries(schemas), ([name, schema]) =>
          Effect.flatMap(tx.findTool(tools[name as keyof typeof tools].id), (row) =>
            row === undefined ? Effect.void : tx.updateTool({ ...row, respBodyJSONSchema: schema }),
          ),
        ),
      ),
    ) as never,
  );
  const server = await m.server({
    name: "Typed answers",
    providers: [{ id: provider.id, tools: Object.values(tools).map((x) => ({ id: x.id })) }],
  });
  serverId = server.id;
  token = (await m.token(server.id)).value;
});

afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
  await services?.dispose();
});

describe.each(ERAS)("protocol %s", (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(mcp.url, serverId, era, token);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("declares outputSchema: object schemas as is, others wrapped as {result}, none when the type is unknown", async () => {
    const tools = Object.fromEntries((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    expect(tools.matching?.outputSchema).toEqual(ECHO);
    expect(tools.array?.outputSchema).toEqual({
      type: "object",
      properties: { result: { type: "array", items: { type: "integer" } } },
      required: ["result"],
    });
    expect(tools.untyped?.outputSchema).toBeUndefined();
    expect(tools.plain?.outputSchema).toBeUndefined();
  });

  it("returns structuredContent matching it (the SDK client validates it)", async () => {
    await client.listTools();
    const matching = await client.callTool({ name: "matching" });
    expect(matching.isError).toBeFalsy();
    expect(matching.structuredContent).toMatchObject({ method: "GET", path: "/echo/m" });
    const array = await client.callTool({ name: "array" });
    expect(array.structuredContent).toEqual({ result: [1, 2, 3] });
  });

  it("answers a tool error when the upstream's answer does not match, or is not JSON", async () => {
    await client.listTools();
    const mismatching = await client.callTool({ name: "mismatching" });
    expect(mismatching.isError).toBe(true);
    expect(mismatching.structuredContent).toBeUndefined();
    expect(JSON.stringify(mismatching.content)).toContain("does not match the schema");
    expect(JSON.stringify(mismatching.content)).toContain("missing");
    const notJson = await client.callTool({ name: "notJson" });
    expect(notJson.isError).toBe(true);
    expect(JSON.stringify(notJson.content)).toContain("not the JSON its description declares");
  });
});
