import * as I from "@mcpsm/domain/openapi-import";
import * as U from "@mcpsm/domain/use-cases";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { actor, importBody, makeServices, refused, run, type Services, resyncBody } from "./support/services.js";

// Re-sync (docs/api-rules.md §15): a new version of a description against the tools an earlier import made.

let services: Services;
beforeEach(() => {
  services = makeServices();
});
afterEach(() => services.dispose());

const owner = actor("owner");

const description = (paths: Record<string, unknown>) => ({
  openapi: "3.0.3",
  info: { title: "Shop", version: "1" },
  servers: [{ url: "https://shop.example.com" }],
  paths,
});

const V1 = description({
  "/items": {
    get: { operationId: "listItems", summary: "List items" },
    post: {
      operationId: "createItem",
      requestBody: { content: { "application/json": { schema: { type: "object" } } } },
    },
  },
  "/items/{id}": {
    get: {
      operationId: "getItem",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
    },
    delete: { operationId: "deleteItem" },
  },
  "/legacy": { get: { operationId: "getLegacy" } },
});

// listItems unchanged; createItem gets a new summary and query parameter; getItem renamed its path
// parameter (same template) and its id; deleteItem and getLegacy removed; /orders added.
const V2 = description({
  "/items": {
    get: { operationId: "listItems", summary: "List items" },
    post: {
      operationId: "createItem",
      summary: "Create an item",
      parameters: [{ name: "dryRun", in: "query", schema: { type: "boolean" } }],
      requestBody: { content: { "application/json": { schema: { type: "object" } } } },
    },
  },
  "/items/{itemId}": {
    get: {
      operationId: "fetchItem",
      parameters: [{ name: "itemId", in: "path", required: true, schema: { type: "string" } }],
    },
  },
  "/orders": { get: { operationId: "listOrders" } },
});

const setUp = async () => {
  const imported = await run(services, I.importProvider(owner, importBody(V1)));
  const provider = imported.result.provider;
  const id = provider.id!;
  const byName = (name: string) => provider.tools.find((t) => t.name === name)!;
  // A hand-written tool: never touched by a re-sync, even on a path the description has.
  const manual = await run(
    services,
    U.createProviderTool(owner, { providerId: id, tool: { name: "handMade", method: "GET", path: "/legacy" } }),
  );
  // A server uses getLegacy, so its tool stays when the operation goes.
  const server = await run(
    services,
    U.createServer(owner, { server: { name: "s1", providers: [{ id, tools: [{ id: byName("getLegacy").id! }] }] } }),
  );
  return {
    id,
    byName,
    manual,
    server,
    version: (await run(services, U.getProvider(owner, { providerId: id }))).version,
  };
};

describe("re-sync", () => {
  it("adds, changes, removes and keeps, with the exact report, keeping the ids of matched tools", async () => {
    const { id, byName, manual, server, version } = await setUp();
    const { provider, report } = await run(services, I.resyncProvider(owner, resyncBody(id, V2)));
    expect(report).toEqual({
      added: [{ name: "listOrders", method: "GET", path: "/orders" }],
      changed: [
        { name: "createItem", method: "POST", path: "/items", fields: ["title", "description", "queryArgsJSONSchema"] },
        {
          name: "fetchItem",
          method: "GET",
          path: "/items/{itemId}",
          fields: ["name", "path", "title", "description", "pathArgsJSONSchema"],
        },
      ],
      removed: [{ name: "deleteItem", method: "DELETE", path: "/items/{id}" }],
      kept: [
        { name: "getLegacy", method: "GET", path: "/legacy", reason: "its operation is gone but 1 server(s) use it" },
      ],
      unchanged: 1,
      skipped: [],
      warnings: [],
    });
    const stored = await run(services, U.getProvider(owner, { providerId: id }));
    expect(stored).toEqual(provider);
    expect(stored.version).toBe(version + 1);
    const ids = Object.fromEntries(stored.tools.map((t) => [t.name, t.id]));
    expect(ids).toEqual({
      listItems: byName("listItems").id,
      createItem: byName("createItem").id,
      fetchItem: byName("getItem").id,
      getLegacy: byName("getLegacy").id,
      handMade: manual.id,
      listOrders: expect.any(String),
    });
    expect(stored.tools.find((t) => t.name === "handMade")).toEqual(manual);
    // The server still reaches its tool.
    const still = await run(services, U.getServer(owner, { serverId: server.id }));
    expect(still.providers[0]?.tools.map((t) => t.id)).toEqual([byName("getLegacy").id]);
  });

  it("the same description again changes nothing and does not move the version", async () => {
    const { id, version } = await setUp();
    const { report, provider } = await run(services, I.resyncProvider(owner, resyncBody(id, V1)));
    expect(report).toMatchObject({ added: [], changed: [], removed: [], kept: [], unchanged: 5 });
    expect(provider.version).toBe(version);
  });

  it("a dry run reports the same and stores nothing", async () => {
    const { id } = await setUp();
    const before = await run(services, U.getProvider(owner, { providerId: id }));
    const dry = await run(services, I.resyncProvider(owner, resyncBody(id, V2, { dryRun: true })));
    expect(dry.report.added).toEqual([{ name: "listOrders", method: "GET", path: "/orders" }]);
    expect(dry.report.removed).toHaveLength(1);
    expect(dry.provider.tools.find((t) => t.name === "listOrders")).not.toHaveProperty("id");
    expect(await run(services, U.getProvider(owner, { providerId: id }))).toEqual(before);
  });

  it("a refused re-sync stores nothing: quota, bad description, another tenant", async () => {
    const { id } = await setUp();
    const before = await run(services, U.getProvider(owner, { providerId: id }));
    const bad = await refused(services, I.resyncProvider(owner, resyncBody(id, { openapi: "3.0.0" })));
    expect(bad._tag).toBe("InvalidArgument");
    const stranger = await refused(services, I.resyncProvider(actor("stranger"), resyncBody(id, V2)));
    expect(stranger._tag).toBe("NotFound");
    expect(await run(services, U.getProvider(owner, { providerId: id }))).toEqual(before);
  });

  it("over the tool quota the re-sync answers 429 naming the count", async () => {
    const small = makeServices({ toolsPerProvider: 6 });
    const imported = await run(small, I.importProvider(owner, importBody(V1)));
    const id = imported.result.provider.id!;
    await run(
      small,
      U.createProviderTool(owner, { providerId: id, tool: { name: "handMade", method: "GET", path: "/x" } }),
    );
    const many = description(Object.fromEntries(["/a", "/b", "/c", "/d", "/e", "/f"].map((p) => [p, { get: {} }])));
    const error = await refused(small, I.resyncProvider(owner, resyncBody(id, many)));
    expect(error).toMatchObject({
      _tag: "ResourceExhausted",
      detail: "the description maps to 6 tools and the provider keeps 1 others; a provider may hold at most 6",
    });
    expect((await run(small, U.getProvider(owner, { providerId: id }))).tools).toHaveLength(6);
    await small.dispose();
  });

  it("names swap between matched tools without a clash", async () => {
    const a = description({ "/x": { get: { operationId: "first" } }, "/y": { get: { operationId: "second" } } });
    const b = description({ "/x": { get: { operationId: "second" } }, "/y": { get: { operationId: "first" } } });
    const imported = await run(services, I.importProvider(owner, importBody(a)));
    const id = imported.result.provider.id!;
    const { provider, report } = await run(services, I.resyncProvider(owner, resyncBody(id, b)));
    expect(report.changed.map((c) => [c.name, c.path])).toEqual([
      ["second", "/x"],
      ["first", "/y"],
    ]);
    expect(provider.tools.map((t) => t.id)).toEqual(imported.result.provider.tools.map((t) => t.id));
  });

  it("a rename that would give a server two tools of one name is refused, and nothing changes", async () => {
    const imported = await run(services, I.importProvider(owner, importBody(V1)));
    const id = imported.result.provider.id!;
    const listItems = imported.result.provider.tools.find((t) => t.name === "listItems")!;
    const other = await run(
      services,
      U.createProvider(owner, { provider: { name: "Other", baseURL: "https://o.example" } }),
    );
    const browse = await run(
      services,
      U.createProviderTool(owner, { providerId: other.id, tool: { name: "browseItems", method: "GET", path: "/b" } }),
    );
    await run(
      services,
      U.createServer(owner, {
        server: {
          name: "mixed",
          providers: [
            { id, tools: [{ id: listItems.id! }] },
            { id: other.id, tools: [{ id: browse.id }] },
          ],
        },
      }),
    );
    const before = await run(services, U.getProvider(owner, { providerId: id }));
    const renamed = JSON.parse(JSON.stringify(V1).replace('"listItems"', '"browseItems"'));
    const error = await refused(services, I.resyncProvider(owner, resyncBody(id, renamed)));
    expect(error).toMatchObject({ _tag: "AlreadyExists" });
    expect(await run(services, U.getProvider(owner, { providerId: id }))).toEqual(before);
  });

  it("takes the body's new media type and encoding, and keeps the tenant's outputSchemaMode", async () => {
    const imported = await run(services, I.importProvider(owner, importBody(V1)));
    const id = imported.result.provider.id!;
    const createItem = imported.result.provider.tools.find((t) => t.name === "createItem")!;
    expect(createItem).toMatchObject({ reqContentType: "application/json", outputSchemaMode: "LENIENT" });
    await run(
      services,
      U.updateProviderTool(owner, { providerId: id, toolId: createItem.id!, tool: { outputSchemaMode: "EXACT" } }),
    );
    const form = JSON.parse(JSON.stringify(V1));
    form.paths["/items"].post.requestBody = {
      content: {
        "application/x-www-form-urlencoded": {
          schema: { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } },
          encoding: { tags: { style: "deepObject", explode: true } },
        },
      },
    };
    const { report, provider } = await run(services, I.resyncProvider(owner, resyncBody(id, form)));
    expect(report.changed).toEqual([
      expect.objectContaining({
        name: "createItem",
        fields: ["reqBodyJSONSchema", "reqContentType", "reqBodyEncoding"],
      }),
    ]);
    expect(provider.tools.find((t) => t.name === "createItem")).toMatchObject({
      id: createItem.id,
      reqContentType: "application/x-www-form-urlencoded",
      reqBodyEncoding: { tags: { style: "deepObject", explode: true } },
      outputSchemaMode: "EXACT",
    });
  });
});
