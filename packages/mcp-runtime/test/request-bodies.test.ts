import qs from "qs";
import { beforeAll, expect, it } from "vitest";
import { actorOf, manage } from "./support/harness.js";
import { describeEachEra, serveWithToken, useMcpSuite } from "./support/mcp-suite.js";
import { startParsingUpstream, type Understood } from "./support/parsing-upstream.js";

// docs/api-rules.md §15a: bodies go upstream in the media type the tool names (reqContentType), with the
// encoding rules of reqBodyEncoding, proved against an upstream that reads them as real APIs do (qs for
// Stripe's brackets, busboy for multipart); and fixed query values (const properties) are filled in.

const suite = useMcpSuite(startParsingUpstream, { upstreamAllowedNetworks: ["127.0.0.0/8"] });
let served: { serverId: string; token: string };

const AUDIO = Buffer.from([0xff, 0xfb, 0x90, 0x44, 0x00, 0x01, 0x02, 0xfe]);

beforeAll(async () => {
  const { services, upstream } = suite;
  const m = manage(services, actorOf("bodies"));
  const provider = await m.provider({ name: "Bodies", baseURL: `http://localhost:${upstream.port}/v1` });
  const post = (name: string, reqContentType: string, fields: Record<string, unknown> = {}) =>
    m.tool(provider.id, { name, method: "POST", path: `/${name}`, reqContentType, ...fields });
  const form = "application/x-www-form-urlencoded";
  const tools = [
    // Stripe: POST /v1/customers, with the encoding its description declares.
    await post("createCustomer", form, {
      reqBodyJSONSchema: { type: "object", properties: { email: { type: "string" } } },
      reqBodyEncoding: {
        metadata: { style: "deepObject", explode: true },
        expand: { style: "deepObject", explode: true },
        items: { style: "deepObject", explode: true },
      },
    }),
    await post("formDefaults", form, {
      reqBodyJSONSchema: { type: "object" },
      reqBodyEncoding: {
        ids: { style: "form", explode: false },
        piped: { style: "pipeDelimited", explode: false },
        point: { explode: false },
        filter: { contentType: "application/json" },
      },
    }),
    // OpenAI: POST /v1/audio/transcriptions (multipart, a binary file part).
    await post("transcribe", "multipart/form-data", {
      reqBodyJSONSchema: {
        type: "object",
        required: ["file", "model"],
        properties: {
          file: { type: "string", contentEncoding: "base64", contentMediaType: "audio/mpeg" },
          model: { type: "string" },
          temperature: { type: "number" },
          include: { type: "array", items: { type: "string" } },
          options: { $ref: "#/$defs/Options" },
        },
        $defs: { Options: { type: "object" } },
      },
      headers: [{ key: "Content-Type", value: "application/json" }],
    }),
    await post("sendText", "text/plain; charset=utf-8", { reqBodyJSONSchema: { type: "string" } }),
    await post("sendXml", "application/xml", { reqBodyJSONSchema: { type: "string" } }),
    await post("upload", "application/octet-stream", {
      reqBodyJSONSchema: { type: "string", contentEncoding: "base64" },
    }),
    await post("sendJson", "application/vnd.api+json", { reqBodyJSONSchema: { type: "object" } }),
    await m.tool(provider.id, {
      name: "listCharges",
      method: "GET",
      path: "/charges",
      queryArgsJSONSchema: {
        type: "object",
        properties: { created: { type: "object" }, expand: { type: "array" }, limit: { type: "integer" } },
      },
    }),
    await m.tool(provider.id, {
      name: "describeRegions",
      method: "GET",
      path: "/",
      queryArgsJSONSchema: {
        type: "object",
        properties: {
          Action: { type: "string", const: "DescribeRegions" },
          Version: { type: "string", const: "2016-11-15" },
          RegionName: { type: "string" },
        },
        required: ["Action", "Version"],
      },
    }),
  ];
  served = await serveWithToken(m, {
    name: "Bodies",
    providers: [{ id: provider.id, tools: tools.map((t) => ({ id: t.id })) }],
  });
});

describeEachEra(
  () => ({ url: suite.mcp.url, ...served }),
  (client) => {
    /** Calls a tool and answers what the upstream understood of its request. */
    const call = async (name: string, args: Record<string, unknown>): Promise<Understood> => {
      const result = await client().callTool({ name, arguments: args });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      return result.structuredContent as unknown as Understood;
    };

    it("a Stripe form: deepObject brackets at any depth, read back by qs as the objects sent", async () => {
      const seen = await call("createCustomer", {
        bodyArgs: {
          email: "jenny@example.com",
          metadata: { order_id: "6735", "note with space": "a&b=c" },
          expand: ["default_source", "tax"],
          items: [{ price: "price_1", quantity: 2 }, { price: "price_2" }],
          livemode: false,
          skipped: null,
        },
      });
      expect(seen.contentType).toBe("application/x-www-form-urlencoded");
      expect(seen.method).toBe("POST");
      expect(seen.url).toBe("/v1/createCustomer");
      expect(seen.form).toEqual({
        email: "jenny@example.com",
        metadata: { order_id: "6735", "note with space": "a&b=c" },
        expand: ["default_source", "tax"],
        items: [{ price: "price_1", quantity: "2" }, { price: "price_2" }],
        livemode: "false",
      });
    });

    it("a form with OpenAPI's default style (form, explode) and the declared ones", async () => {
      const seen = await call("formDefaults", {
        bodyArgs: {
          tags: ["a", "b"],
          ids: [1, 2, 3],
          piped: ["x", "y"],
          point: { x: 1, y: 2 },
          flat: { color: "red", size: "L" },
          filter: { q: "x" },
        },
      });
      expect([...new URLSearchParams(seen.raw)]).toEqual([
        ["tags", "a"],
        ["tags", "b"],
        ["ids", "1,2,3"],
        ["piped", "x|y"],
        ["point", "x,1,y,2"],
        ["color", "red"],
        ["size", "L"],
        ["filter", '{"q":"x"}'],
      ]);
    });

    it("OpenAI's multipart: the base64 argument is a file part of its bytes, the rest fields, read by busboy", async () => {
      const seen = await call("transcribe", {
        bodyArgs: {
          file: AUDIO.toString("base64"),
          model: "whisper-1",
          temperature: 0.2,
          include: ["logprobs", "words"],
          options: { language: "en" },
        },
      });
      // The multipart type with its boundary wins over the tool's own Content-Type header.
      expect(seen.contentType).toMatch(/^multipart\/form-data; boundary=/);
      expect(seen.parts).toEqual(
        expect.arrayContaining([
          { name: "file", filename: "file.mp3", mimeType: "audio/mpeg", base64: AUDIO.toString("base64") },
          { name: "model", value: "whisper-1", mimeType: "text/plain" },
          { name: "temperature", value: "0.2", mimeType: "text/plain" },
          { name: "include", value: "logprobs", mimeType: "text/plain" },
          { name: "include", value: "words", mimeType: "text/plain" },
        ]),
      );
      // An object part is a field holding its JSON text.
      expect(seen.parts).toContainEqual({ name: "options", value: '{"language":"en"}', mimeType: "text/plain" });
    });

    it("text and XML bodies are the string as is; an octet-stream body the bytes its base64 encodes", async () => {
      const text = await call("sendText", { bodyArgs: "héllo\nworld" });
      expect(text).toMatchObject({ contentType: "text/plain; charset=utf-8", raw: "héllo\nworld" });
      const xml = await call("sendXml", { bodyArgs: "<note><to>Tove</to></note>" });
      expect(xml).toMatchObject({ contentType: "application/xml", raw: "<note><to>Tove</to></note>" });
      const bytes = await call("upload", { bodyArgs: AUDIO.toString("base64") });
      expect(bytes).toMatchObject({ contentType: "application/octet-stream", base64: AUDIO.toString("base64") });
      const json = await call("sendJson", { bodyArgs: { data: { type: "x" } } });
      expect(json).toMatchObject({ contentType: "application/vnd.api+json", raw: '{"data":{"type":"x"}}' });
    });

    it("refuses, as invalid arguments, a body the media type cannot carry", async () => {
      const notBase64 = await client().callTool({ name: "upload", arguments: { bodyArgs: "not base64!" } });
      expect(notBase64.isError).toBe(true);
      expect(JSON.stringify(notBase64.content)).toContain("must be base64");
      const notFile = await client().callTool({
        name: "transcribe",
        arguments: { bodyArgs: { file: "%%%", model: "whisper-1" } },
      });
      expect(notFile.isError).toBe(true);
      expect(JSON.stringify(notFile.content)).toContain("bodyArgs.file");
    });

    it("an object query value takes bracket keys (Stripe's deepObject), read back by qs", async () => {
      const seen = await call("listCharges", {
        queryArgs: { created: { gt: 1700000000, lte: 1800000000 }, expand: ["data.customer", "x"], limit: 3 },
      });
      const query = new URL(seen.url, "http://x").search.slice(1);
      expect(qs.parse(query)).toEqual({
        created: { gt: "1700000000", lte: "1800000000" },
        expand: ["data.customer", "x"],
        limit: "3",
      });
      expect(query).toContain("expand=data.customer&expand=x");
    });

    it("fills in fixed query values the caller leaves out; one given must equal the const", async () => {
      const seen = await call("describeRegions", { queryArgs: { RegionName: "eu-west-1" } });
      expect(new URL(seen.url, "http://x").searchParams.toString()).toBe(
        "Action=DescribeRegions&Version=2016-11-15&RegionName=eu-west-1",
      );
      expect((await call("describeRegions", {})).url).toBe("/v1/?Action=DescribeRegions&Version=2016-11-15");
      const wrong = await client().callTool({ name: "describeRegions", arguments: { queryArgs: { Action: "Other" } } });
      expect(wrong.isError).toBe(true);
      expect(JSON.stringify(wrong.content)).toContain("queryArgs.Action");
    });
  },
);
