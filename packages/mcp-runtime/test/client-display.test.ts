import { beforeAll, expect, it } from "vitest";
import { ref } from "./support/fixture.js";
import { actorOf, manage } from "./support/harness.js";
import { describeEachEra, serveWithToken, useMcpSuite } from "./support/mcp-suite.js";
import { startUpstream } from "./support/upstream.js";

// Issue 16, what clients show: tool descriptions never empty, server and tool icons, serverInfo, binary
// answers as image / audio / embedded-resource content, and resources read with the provider's credentials.

const suite = useMcpSuite(startUpstream, { upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamMaxResponseBytes: 1024 });
let served: { serverId: string; token: string };
const ICON = "https://cdn.example.com/acme.png";
const DOCS = "https://docs.example.com/acme";

beforeAll(async () => {
  const { services, upstream } = suite;
  const m = manage(services, actorOf("display"));
  const provider = await m.provider({
    name: "Acme",
    baseURL: `http://localhost:${upstream.port}/api/`,
    iconURL: ICON,
    documentURL: DOCS,
  });
  await m.variable("LOCALHOST_KEY", "resource-key");
  const t = (body: Record<string, unknown>) => m.tool(provider.id, { method: "GET", ...body });
  const described = await t({ name: "described", title: "T", description: "Reads things", path: "/echo/a" });
  const titled = await t({ name: "titled", title: "List the widgets", path: "/echo/b" });
  const bare = await t({
    name: "bare",
    method: "DELETE",
    path: "/echo/items/{id}",
    pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  });
  const keyed = await t({
    name: "keyed",
    path: "/echo/k",
    headers: [
      { key: "X-Api-Key", value: ref("LOCALHOST_KEY") },
      { key: "X-Tool-Only", value: "static" },
    ],
  });
  const binaries = await Promise.all(
    [
      ["image", "/image"],
      ["audio", "/audio"],
      ["binary", "/binary"],
      ["bigImage", "/big-image/5000"],
    ].map(([name, path]) => t({ name, path })),
  );
  const onBase = await m.resource(provider.id, {
    name: "onBase",
    uri: `http://localhost:${upstream.port}/api/echo/resource`,
    mimeType: "application/json",
  });
  // Same upstream, another origin (127.0.0.1 is not the provider's localhost): no credentials go there.
  const elsewhere = await m.resource(provider.id, {
    name: "elsewhere",
    uri: `http://127.0.0.1:${upstream.port}/api/echo/elsewhere`,
    mimeType: "application/json",
  });
  served = await serveWithToken(m, {
    name: "Acme tools",
    description: "Everything Acme.",
    providers: [{ id: provider.id, tools: [described, titled, bare, keyed, ...binaries].map((x) => ({ id: x.id })) }],
    resources: [{ id: onBase.id }, { id: elsewhere.id }],
  });
});

describeEachEra(
  () => ({ url: suite.mcp.url, ...served }),
  (client) => {
    it("announces title, description, the providers' icons and their documentation as website", () => {
      expect(client().getServerVersion()).toEqual({
        name: "Acme tools",
        title: "Acme tools",
        version: "1",
        description: "Everything Acme.",
        icons: [{ src: ICON }],
        websiteUrl: DOCS,
      });
    });

    it("never lists a tool without a description: its own, else its title, else METHOD path on provider", async () => {
      const { tools } = await client().listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get("described")?.description).toBe("Reads things");
      expect(byName.get("titled")?.description).toBe("List the widgets");
      expect(byName.get("bare")?.description).toBe("DELETE /echo/items/{id} on Acme");
      for (const tool of tools) expect(tool.icons).toEqual([{ src: ICON }]);
    });

    it("returns image and audio answers as such, other binaries as an embedded resource", async () => {
      const image = await client().callTool({ name: "image" });
      expect(image.content).toEqual([
        {
          type: "image",
          mimeType: "image/png",
          data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]).toString("base64"),
        },
      ]);
      const audio = await client().callTool({ name: "audio" });
      expect(audio.content).toEqual([
        { type: "audio", mimeType: "audio/mpeg", data: Buffer.from([0xff, 0xfb, 0x90, 0x64]).toString("base64") },
      ]);
      const binary = await client().callTool({ name: "binary" });
      expect(binary.content).toEqual([
        {
          type: "resource",
          resource: {
            uri: `http://localhost:${suite.upstream.port}/api/binary`,
            mimeType: "application/octet-stream",
            blob: Buffer.from([0, 1, 2, 3, 254]).toString("base64"),
          },
        },
      ]);
    });

    it("refuses a binary answer over the size cap rather than returning a corrupt one", async () => {
      const big = await client().callTool({ name: "bigImage" });
      expect(big.isError).toBe(true);
      expect(JSON.stringify(big.content)).toContain("larger than 1024 bytes");
    });

    it("reads a resource on the provider's base URL with its credential headers, and nowhere else", async () => {
      const { resources } = await client().listResources();
      const byName = new Map(resources.map((r) => [r.name, r.uri]));
      await client().readResource({ uri: byName.get("onBase") ?? "" });
      expect(suite.upstream.last().url).toBe("/api/echo/resource");
      expect(suite.upstream.last().headers["x-api-key"]).toBe("resource-key");
      // Only credentials (headers with variables), not a tool's other headers.
      expect(suite.upstream.last().headers["x-tool-only"]).toBeUndefined();
      await client().readResource({ uri: byName.get("elsewhere") ?? "" });
      expect(suite.upstream.last().url).toBe("/api/echo/elsewhere");
      expect(suite.upstream.last().headers["x-api-key"]).toBeUndefined();
    });
  },
);
