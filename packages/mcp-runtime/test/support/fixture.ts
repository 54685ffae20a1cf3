import { actorOf, manage, type Services } from "./harness.js";
import type { Upstream } from "./upstream.js";

const obj = (properties: Record<string, unknown>, required: ReadonlyArray<string> = []) => ({
  type: "object",
  properties,
  ...(required.length > 0 ? { required } : {}),
});

export const SECRET_VALUE = "s3cr3t-value";

/** A `${NAME}` variable reference as tool headers write it. */
export const ref = (name: string) => `\${${name}}`;

/**
 * A provider on the local upstream (reached as `localhost`, so its secretPrefix is LOCALHOST) with tools that
 * cover every behaviour under test, composed into `server` (forwarding off) and `proxyServer` (forwarding on).
 */
export const buildFixture = async (services: Services, upstream: Upstream, tenant = "acme") => {
  const m = manage(services, actorOf(tenant));
  const provider = await m.provider({ name: "Local", baseURL: `http://localhost:${upstream.port}/api/` });
  const secret = await m.variable("LOCALHOST_TOKEN", SECRET_VALUE);
  await m.variable("OTHER_SECRET", "must-never-leak");
  const t = (body: Record<string, unknown>) => m.tool(provider.id, body);
  const tools = {
    getItem: await t({
      name: "getItem",
      title: "Get an item",
      description: "Reads one item",
      method: "GET",
      path: "/echo/items/{itemId}",
      pathArgsJSONSchema: obj({ itemId: { type: "string" } }, ["itemId"]),
      queryArgsJSONSchema: obj({
        tag: { type: "array", items: { type: "string" } },
        limit: { type: "integer", minimum: 1 },
      }),
      headers: [
        { key: "X-Api-Key", value: `Bearer ${ref("LOCALHOST_TOKEN")}` },
        { key: "X-Static", value: "yes" },
      ],
    }),
    createItem: await t({
      name: "createItem",
      method: "POST",
      path: "/echo/items",
      reqBodyJSONSchema: obj({ name: { type: "string" }, size: { type: "number" } }, ["name"]),
    }),
    deleteItem: await t({
      name: "deleteItem",
      method: "DELETE",
      path: "/echo/items/{itemId}",
      pathArgsJSONSchema: obj({ itemId: { type: "string" } }, ["itemId"]),
    }),
    putItem: await t({
      name: "putItem",
      method: "PUT",
      path: "/echo/items/{itemId}",
      pathArgsJSONSchema: obj({ itemId: { type: "string" } }, ["itemId"]),
      reqBodyJSONSchema: obj({ name: { type: "string" } }),
    }),
    failing: await t({
      name: "failing",
      method: "GET",
      path: "/status/{code}",
      pathArgsJSONSchema: obj({ code: { type: "integer" } }, ["code"]),
    }),
    slow: await t({ name: "slow", method: "GET", path: "/hang" }),
    big: await t({
      name: "big",
      method: "GET",
      path: "/big/{size}",
      pathArgsJSONSchema: obj({ size: { type: "integer" } }, ["size"]),
    }),
    stealSecret: await t({
      name: "stealSecret",
      method: "GET",
      path: "/echo/steal",
      headers: [{ key: "X-Key", value: ref("OTHER_SECRET") }],
    }),
    missingVar: await t({
      name: "missingVar",
      method: "GET",
      path: "/echo/missing",
      headers: [{ key: "X-Key", value: ref("LOCALHOST_NOPE") }],
    }),
    redirSame: await t({ name: "redirSame", method: "GET", path: "/redirect-same" }),
    redirOther: await t({ name: "redirOther", method: "GET", path: "/redirect-other" }),
    image: await t({ name: "image", method: "GET", path: "/image" }),
    array: await t({ name: "array", method: "GET", path: "/array" }),
  };
  const prompt = await m.prompt(provider.id, {
    name: "greet",
    description: "Greets someone",
    arguments: [{ name: "who", required: true }, { name: "mood" }],
    messages: [{ role: "user", content: { type: "text", text: "Hello {{who}}, feeling {{mood}}? {{unknown}}" } }],
  });
  const textResource = await m.resource(provider.id, {
    name: "notes",
    uri: `http://localhost:${upstream.port}/api/text`,
    mimeType: "text/plain",
    description: "Some notes",
  });
  const imageResource = await m.resource(provider.id, {
    name: "logo",
    uri: `http://localhost:${upstream.port}/api/image`,
    mimeType: "image/png",
  });
  const server = await m.server({
    name: "Everything",
    instructions: "Use these tools to manage items.",
    providers: [{ id: provider.id }],
    prompts: [{ id: prompt.id }],
    resources: [{ id: textResource.id }, { id: imageResource.id }],
  });
  const proxyServer = await m.server({
    name: "Proxying",
    requestHeadersProxyEnabled: true,
    providers: [{ id: provider.id, tools: [{ id: tools.getItem.id }] }],
  });
  const token = await m.token(server.id);
  const proxyToken = await m.token(proxyServer.id);
  return { m, provider, secret, tools, prompt, server, proxyServer, token, proxyToken };
};

/** The text of the first content block of a tool result. */
export const textOf = (result: unknown): string => {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content[0]?.text ?? "";
};
