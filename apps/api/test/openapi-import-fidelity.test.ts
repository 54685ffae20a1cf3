import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import { type RecordingUpstream, startRecordingUpstream } from "./support/recording-upstream.js";

// Import fidelity over HTTP (docs/api-rules.md §15a), the mapping half: a tool whose schemas share a schema
// through `$defs` and a tool on a path with a fixed query are served through /mcp/{id} and called against a
// local upstream; descriptions without an absolute server; re-sync stores and matches the path as written
// (on the test store: PostgreSQL when TEST_DATABASE_URL is set).

const world = serviceForFile({ alice: "fidelity" }, { mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
let upstream: RecordingUpstream;
let upstreamUrl: string;

const shop = () => ({
  openapi: "3.0.3",
  info: { title: "Shop", version: "1" },
  servers: [{ url: `${upstreamUrl}/api` }],
  paths: {
    "/orders": {
      post: {
        operationId: "createOrder",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Order" } } },
        },
      },
    },
    "/?Action=DescribeRegions&Version=2016-11-15": { get: { operationId: "DescribeRegions" } },
    "/files/{id}#add": { put: { operationId: "addLink" } },
    "/files/{id}#remove": { put: { operationId: "removeLink" } },
  },
  components: {
    schemas: {
      Address: { type: "object", required: ["city"], properties: { city: { type: "string" } } },
      Order: {
        type: "object",
        required: ["billing"],
        properties: {
          billing: { $ref: "#/components/schemas/Address" },
          shipping: { $ref: "#/components/schemas/Address" },
        },
      },
    },
  },
});

beforeAll(async () => {
  upstream = await startRecordingUpstream({
    "/specs/relative.json": () => ({ ...shop(), servers: [{ url: "/api/v2" }] }),
  });
  upstreamUrl = upstream.url;
});

afterAll(() => upstream?.close());

describe("imported tools with $defs and fixed query pairs", () => {
  it("are stored, listed with their references rebased, validated and called end to end", async () => {
    const res = await world.alice.api.post("/providers/import", { import: { document: shop() } });
    expect(res.status).toBe(201);
    const provider = res.body.provider;
    expect(res.body.report.skipped).toEqual([]);
    const order = provider.tools.find((t: { name: string }) => t.name === "createOrder");
    expect(order.reqBodyJSONSchema.$defs).toEqual({
      Address: { type: "object", required: ["city"], properties: { city: { type: "string" } } },
    });
    // A tool written back with its $defs is accepted as any tool schema is.
    const put = await world.alice.api.patch(`/providers/${provider.id}/tools/${order.id}`, {
      tool: { reqBodyJSONSchema: order.reqBodyJSONSchema },
    });
    expect(put.status).toBe(200);

    const server = await world.alice.api.post("/servers", {
      server: { name: "Shop", providers: [{ id: provider.id }] },
    });
    const token = (await world.alice.api.post(`/servers/${server.body.server.id}/tokens`, { token: { name: "agent" } }))
      .body.token.value;
    const client = new Client({ name: "fidelity-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${world.svc.url}/mcp/${server.body.server.id}`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const listed = (await client.listTools()).tools;
    const bodyArgs = listed.find((t) => t.name === "createOrder")?.inputSchema.properties?.bodyArgs as Record<
      string,
      unknown
    >;
    expect(bodyArgs.properties).toEqual({
      billing: { $ref: "#/properties/bodyArgs/$defs/Address" },
      shipping: { $ref: "#/properties/bodyArgs/$defs/Address" },
    });
    const ok = await client.callTool({ name: "createOrder", arguments: { bodyArgs: { billing: { city: "Oslo" } } } });
    expect(ok.isError).not.toBe(true);
    expect(upstream.received.at(-1)).toMatchObject({
      method: "POST",
      path: "/api/orders",
      body: { billing: { city: "Oslo" } },
    });
    const bad = await client.callTool({ name: "createOrder", arguments: { bodyArgs: { billing: { town: "Oslo" } } } });
    expect(bad.isError).toBe(true);
    expect(upstream.received).toHaveLength(1);

    const regions = await client.callTool({
      name: "describeRegions",
      arguments: { queryArgs: { Action: "DescribeRegions", Version: "2016-11-15" } },
    });
    expect(regions.isError).not.toBe(true);
    expect(upstream.received.at(-1)).toMatchObject({
      method: "GET",
      path: "/api/",
      query: { Action: "DescribeRegions", Version: "2016-11-15" },
    });
    const wrong = await client.callTool({
      name: "describeRegions",
      arguments: { queryArgs: { Action: "TerminateInstances", Version: "2016-11-15" } },
    });
    expect(wrong.isError).toBe(true);
    await client.close();

    // Re-sync keeps each fragment variant on its own tool.
    const again = await world.alice.api.post(`/providers/${provider.id}/import`, { import: { document: shop() } });
    expect(again.status).toBe(200);
    expect(again.body.report).toMatchObject({ added: [], removed: [], unchanged: 4 });
  });
});

describe("descriptions without an absolute server", () => {
  const serverless = () => ({ ...shop(), servers: undefined });

  it("a dry run answers 200 with a warning; the import answers 400 naming import.provider.baseURL", async () => {
    const dry = await world.alice.api.post("/providers/import", { import: { document: serverless(), dryRun: true } });
    expect(dry.status).toBe(200);
    expect(dry.body.report.warnings[0]).toEqual({
      path: "import.document.servers",
      message: expect.stringContaining("import.provider.baseURL"),
    });
    const real = await world.alice.api.post("/providers/import", { import: { document: serverless() } });
    expect(real.status).toBe(400);
    expect(real.body.errors).toEqual([{ path: "import.provider.baseURL", message: expect.any(String) }]);
  });

  it("import.url resolves a relative server against the URL", async () => {
    const made = await world.alice.api.post("/providers/import", {
      import: { url: `${upstreamUrl}/specs/relative.json`, provider: { name: "Relative" } },
    });
    expect(made.status).toBe(201);
    expect(made.body.provider.baseURL).toBe(`${upstreamUrl}/api/v2`);
  });
});
