import * as I from "@mcpsm/domain/openapi-import";
import { openApiReaderLayer } from "@mcpsm/openapi-import";
import { Effect } from "effect";
import { beforeAll, expect, it } from "vitest";
import { actorOf, manage } from "./support/harness.js";
import { describeEachEra, serveWithToken, useMcpSuite } from "./support/mcp-suite.js";
import { startParsingUpstream, type Understood } from "./support/parsing-upstream.js";

// docs/api-rules.md §15a: an operation with a form or multipart body, imported from its description, becomes
// a tool whose call the upstream reads as the real API would. The operations are Stripe's `POST /v1/customers`
// and OpenAI's `POST /audio/transcriptions`, cut down from their published descriptions (the encoding,
// the binary part and the shapes as published).

const STRIPE_AND_OPENAI = {
  openapi: "3.0.0",
  info: { title: "Stripe and OpenAI excerpts", version: "1" },
  servers: [{ url: "https://api.example.com/" }],
  paths: {
    "/v1/customers": {
      post: {
        operationId: "PostCustomers",
        requestBody: {
          content: {
            "application/x-www-form-urlencoded": {
              encoding: {
                address: { explode: true, style: "deepObject" },
                expand: { explode: true, style: "deepObject" },
                metadata: { explode: true, style: "deepObject" },
                preferred_locales: { explode: true, style: "deepObject" },
              },
              schema: {
                additionalProperties: false,
                type: "object",
                properties: {
                  address: {
                    anyOf: [
                      {
                        type: "object",
                        properties: { city: { type: "string", maxLength: 5000 }, line1: { type: "string" } },
                        title: "optional_fields_customer_address",
                      },
                      { enum: [""], type: "string" },
                    ],
                  },
                  email: { maxLength: 512, type: "string" },
                  expand: { type: "array", items: { maxLength: 5000, type: "string" } },
                  metadata: {
                    anyOf: [
                      { additionalProperties: { type: "string" }, type: "object" },
                      { enum: [""], type: "string" },
                    ],
                  },
                  preferred_locales: { type: "array", items: { maxLength: 5000, type: "string" } },
                },
              },
            },
          },
          required: false,
        },
        responses: {
          "200": {
            description: "Successful response.",
            content: {
              "application/json": {
                schema: { type: "object", required: ["id", "object"], properties: { id: { type: "string" } } },
              },
            },
          },
        },
      },
    },
    "/audio/transcriptions": {
      post: {
        operationId: "createTranscription",
        requestBody: {
          required: true,
          content: {
            "multipart/form-data": {
              schema: {
                type: "object",
                additionalProperties: false,
                required: ["file", "model"],
                properties: {
                  file: { type: "string", format: "binary", "x-oaiTypeLabel": "file" },
                  model: { anyOf: [{ type: "string" }, { type: "string", enum: ["whisper-1"] }] },
                  temperature: { type: "number", default: 0 },
                  timestamp_granularities: {
                    type: "array",
                    items: { type: "string", enum: ["word", "segment"] },
                  },
                },
              },
            },
          },
        },
        responses: {
          "200": {
            description: "OK",
            content: { "application/json": { schema: { type: "object", required: ["text"] } } },
          },
        },
      },
    },
  },
};

const WAV = Buffer.from("RIFF\u0024\u0000\u0000\u0000WAVEfmt ", "latin1");

const suite = useMcpSuite(startParsingUpstream, { upstreamAllowedNetworks: ["127.0.0.0/8"] });
let served: { serverId: string; token: string };

beforeAll(async () => {
  const { services, upstream } = suite;
  const actor = actorOf("imported-bodies");
  const imported = (await services.runPromise(
    Effect.provide(
      I.importProvider(actor, {
        source: { _tag: "Document", document: STRIPE_AND_OPENAI },
        provider: { baseURL: `http://localhost:${upstream.port}` },
      }),
      openApiReaderLayer,
    ) as never,
  )) as { result: { provider: { id: string; tools: Array<{ id: string; name: string }> } } };
  const provider = imported.result.provider;
  const m = manage(services, actor);
  served = await serveWithToken(m, {
    name: "Imported bodies",
    providers: [{ id: provider.id, tools: provider.tools.map((t) => ({ id: t.id })) }],
  });
});

describeEachEra(
  () => ({ url: suite.mcp.url, ...served }),
  (client) => {
    const call = async (name: string, args: Record<string, unknown>) => {
      await client().listTools();
      const result = await client().callTool({ name, arguments: args });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      return result.structuredContent as unknown as Understood;
    };

    it("Stripe's POST /v1/customers reaches the upstream as the form Stripe reads", async () => {
      const seen = await call("postCustomers", {
        bodyArgs: {
          email: "jenny@example.com",
          address: { city: "Paris", line1: "1 rue" },
          metadata: { order_id: "6735" },
          expand: ["tax", "default_source"],
          preferred_locales: ["fr", "en"],
        },
      });
      expect(seen).toMatchObject({ method: "POST", url: "/v1/customers" });
      expect(seen.contentType).toBe("application/x-www-form-urlencoded");
      expect(seen.form).toEqual({
        email: "jenny@example.com",
        address: { city: "Paris", line1: "1 rue" },
        metadata: { order_id: "6735" },
        expand: ["tax", "default_source"],
        preferred_locales: ["fr", "en"],
      });
      expect(seen.raw).toContain("expand%5B0%5D=tax");
    });

    it("OpenAI's POST /audio/transcriptions sends the audio as a file part, the rest as fields", async () => {
      const seen = await call("createTranscription", {
        bodyArgs: { file: WAV.toString("base64"), model: "whisper-1", timestamp_granularities: ["word", "segment"] },
      });
      expect(seen).toMatchObject({ method: "POST", url: "/audio/transcriptions" });
      expect(seen.parts).toHaveLength(4);
      expect(seen.parts).toEqual(
        expect.arrayContaining([
          // The bytes are a WAV file: named and typed so, as OpenAI tells formats by the file name.
          { name: "file", filename: "file.wav", mimeType: "audio/wav", base64: WAV.toString("base64") },
          { name: "model", value: "whisper-1", mimeType: "text/plain" },
          { name: "timestamp_granularities", value: "word", mimeType: "text/plain" },
          { name: "timestamp_granularities", value: "segment", mimeType: "text/plain" },
        ]),
      );
    });
  },
);
