import { Effect } from "effect";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../src/http/route-table.js";
import { serviceForFile } from "./support/file-service.js";
import { makeRouteFixture, type RouteFixture } from "./support/route-fixture.js";

// Property-based fuzz of every write endpoint (every POST and PATCH) with arbitrary JSON: plain values, and
// envelopes holding the record's real field names with hostile values (NUL characters, unpaired surrogates,
// huge and negative numbers, deep and wide structures, ids of real records, near-valid URLs and enums). Two
// properties, on the memory store and again on PostgreSQL: no answer is a 5xx, and an answer that is not a
// success changed nothing (a full dump of the store through the storage port, before and after, is equal).
// Every answer is also checked against the OpenAPI document and for planted secrets by the harness.

const RUNS = Number(process.env.FUZZ_RUNS ?? 40);

const world = serviceForFile({ owner: "fuzz" });
let fixture: RouteFixture;

beforeAll(async () => {
  fixture = await makeRouteFixture(world.owner.api, {
    oauth2Config: { clientID: "c", clientSecret: "fuzz-client-secret-0123456789", authURL: "", tokenURL: "" },
  });
});

/** Everything the store holds for the tenant (and every provider it can see), read through the port. */
const dump = () =>
  world.svc.inspect((tx) =>
    Effect.gen(function* () {
      const providers = (yield* tx.searchProviders({ viewerTenant: world.owner.id, limit: 100_000 })).items;
      const children = yield* Effect.forEach(providers, ({ provider }) =>
        Effect.all([tx.listTools(provider.id), tx.listPrompts(provider.id), tx.listResources(provider.id)]),
      );
      const servers = yield* tx.listServerGraphs(world.owner.id);
      const tokens = yield* Effect.forEach(servers, (g) => tx.listServerTokens(g.server.id));
      const variables = yield* tx.listVariables(world.owner.id);
      return JSON.stringify({ providers, children, servers, tokens, variables });
    }),
  );

const FIELDS: Record<string, ReadonlyArray<string>> = {
  server: [
    "name",
    "description",
    "instructions",
    "version",
    "providers",
    "resources",
    "prompts",
    "requestHeadersProxyEnabled",
    "dynamicToolDiscoveryEnabled",
    "id",
  ],
  provider: [
    "name",
    "description",
    "baseURL",
    "documentURL",
    "iconURL",
    "apiType",
    "visibilityType",
    "oauth2Config",
    "tools",
    "secretPrefix",
  ],
  tool: [
    "name",
    "title",
    "description",
    "method",
    "path",
    "pathArgsJSONSchema",
    "queryArgsJSONSchema",
    "reqBodyJSONSchema",
    "headers",
    "oauth2Scopes",
    "providerID",
    "toolID",
  ],
  prompt: ["name", "description", "arguments", "messages", "promptID"],
  resource: ["name", "description", "uri", "mimeType", "size", "annotations", "resourceID"],
  variable: ["type", "name", "value"],
  token: ["name", "expiresAt"],
};

/** The envelope of a write route's body. */
const envelopeOf = (path: string): string => {
  const last =
    path
      .split("/")
      .filter((s) => s !== "" && !s.startsWith(":"))
      .at(-1) ?? "";
  return (
    (
      {
        servers: "server",
        providers: "provider",
        tools: "tool",
        prompts: "prompt",
        resources: "resource",
        variables: "variable",
        tokens: "token",
      } as Record<string, string>
    )[last] ?? last
  );
};

const hostileString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfff",
    "😀",
    "",
    " ",
    "https://api.example.com/v1",
    "http://127.0.0.1:1/",
    "file:///etc/passwd",
    "https://user:pw@x.example",
    "GET",
    "get",
    "TRACE",
    "REST",
    "INVALID",
    "PUBLIC",
    "INTERNAL",
    "ENV",
    "SECRET",
    "/items/{id}",
    "/{a}/{b}",
    "toolName",
    "X-Api-Key",
    "Host",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the domain's variable syntax
    "${API_EXAMPLE_COM_KEY}",
    "2030-01-01T00:00:00Z",
    "1999-01-01T00:00:00Z",
    "__proto__",
    "constructor",
    "x".repeat(10_001),
  ),
);

const ids = () =>
  fc.constantFrom(
    fixture.P,
    fixture.P2,
    fixture.T,
    fixture.T2,
    fixture.T3,
    fixture.Pr,
    fixture.Pr2,
    fixture.R,
    fixture.R2,
    fixture.S,
    fixture.V,
    "AAAAAAAAAAA",
    "short",
  );

/** Built once the fixture exists (its ids are among the values). */
const hostileValue = (): fc.Arbitrary<unknown> =>
  fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      hostileString,
      ids(),
      fc.constantFrom(
        0,
        -1,
        1,
        2 ** 31,
        -(2 ** 31) - 1,
        1e308,
        -0,
        0.5,
        Number.MAX_SAFE_INTEGER + 2,
        true,
        false,
        null,
      ),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.array(
        fc.record(
          { id: ids(), tools: fc.option(fc.array(fc.record({ id: ids() }), { maxLength: 3 }), { nil: undefined }) },
          { requiredKeys: ["id"] },
        ),
        {
          maxLength: 3,
        },
      ),
      fc.dictionary(
        fc.oneof(
          hostileString,
          fc.constantFrom("type", "properties", "required", "key", "value", "role", "content", "text"),
        ),
        tie("value"),
        {
          maxKeys: 4,
        },
      ),
    ),
  })).value;

/** A body for a route with envelope `name`: anything at all, or the envelope with real and made-up fields. */
const bodyFor = (name: string) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    {
      weight: 4,
      arbitrary: fc
        .dictionary(
          fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...(FIELDS[name] ?? ["name"])) },
            { weight: 1, arbitrary: hostileString },
          ),
          hostileValue(),
          {
            maxKeys: 6,
          },
        )
        .map((fields) => ({ [name]: fields })),
    },
  );

const writeRoutes = ROUTES.filter((r) => r.method === "POST" || r.method === "PATCH");

const pathOf = (template: string) =>
  template
    .replace(/^\/servers\/:id/, `/servers/${fixture.S}`)
    .replace(/^\/providers\/:id/, `/providers/${fixture.P}`)
    .replace(/^\/variables\/:id/, `/variables/${fixture.V}`)
    .replace(":toolID", fixture.T)
    .replace(":promptID", fixture.Pr)
    .replace(":resourceID", fixture.R);

describe("fuzzing every write endpoint with arbitrary JSON", () => {
  it("covers every POST and PATCH route", () => {
    expect(writeRoutes.length).toBeGreaterThanOrEqual(15);
  });

  it.each(writeRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    "%s: never a 5xx; a refused write changes nothing",
    async (_label, route) => {
      const name = envelopeOf(route.path);
      let before = await dump();
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(bodyFor(name), async (body) => {
          const res = await world.owner.api.request(route.method, pathOf(route.path), { body: JSON.stringify(body) });
          expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
          const after = await dump();
          if (res.status >= 400) {
            refused++;
            expect(after).toBe(before);
          }
          before = after;
        }),
        { numRuns: RUNS },
      );
      // The generators mostly produce invalid writes: the "changes nothing" half was exercised.
      expect(refused).toBeGreaterThan(RUNS / 4);
    },
    120_000,
  );
});
