import { jsonSchemaProblem } from "@mcpsm/domain/schemas";
import * as I from "@mcpsm/domain/openapi-import";
import * as U from "@mcpsm/domain/use-cases";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actor, importBody, makeServices, packageFile, refused, run, type Services } from "./support/services.js";

// Real descriptions shipped by npm packages (dev dependencies, not copies in this repository): each imports
// with the expected number of tools and skips, and every tool passes the validation of a hand-written one.

let services: Services;
beforeAll(() => {
  services = makeServices();
});
afterAll(() => services.dispose());

const EXAMPLES = "@readme/oas-examples";
const OCTOKIT = "@octokit/openapi";

interface Fixture {
  readonly label: string;
  readonly pkg: string;
  readonly file: string;
  /** Send the parsed object rather than the text (the text of GitHub's is over 10 MiB pretty-printed). */
  readonly asObject?: boolean;
  readonly tools: number;
  readonly skipped: number;
  readonly check?: (result: I.ImportResult) => void;
}

const FIXTURES: ReadonlyArray<Fixture> = [
  {
    label: "Swagger 2.0, YAML (Petstore)",
    pkg: EXAMPLES,
    file: "2.0/yaml/petstore.yaml",
    tools: 20,
    skipped: 0,
    check: ({ provider }) => {
      expect(provider.baseURL).toBe("http://petstore.swagger.io/v2");
      expect(provider.tools.find((t) => t.name === "getPetById")?.headers).toEqual([
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference
        { key: "api_key", value: "${PETSTORE_SWAGGER_IO_API_KEY}" },
      ]);
    },
  },
  {
    label: "OpenAPI 3.0, JSON (Petstore)",
    pkg: EXAMPLES,
    file: "3.0/json/petstore.json",
    tools: 20,
    skipped: 0,
  },
  {
    label: "OpenAPI 3.1 with an OAuth 2.0 authorization code flow, YAML (Train Travel)",
    pkg: EXAMPLES,
    file: "3.1/yaml/train-travel.yaml",
    tools: 7,
    skipped: 0,
    check: ({ provider }) => {
      expect(provider.oauth2Config).toEqual({
        clientID: "",
        authURL: "https://example.com/oauth/authorize",
        tokenURL: "https://example.com/oauth/token",
      });
      expect(provider.tools.map((t) => [t.name, t.oauth2Scopes])).toEqual([
        ["getStations", ["read"]],
        ["getTrips", ["read"]],
        ["getBookings", ["read"]],
        ["createBooking", ["write"]],
        ["getBooking", ["read"]],
        ["deleteBooking", ["write"]],
        ["createBookingPayment", ["read"]],
      ]);
    },
  },
  {
    label: "OpenAPI 3.0 with every kind of security scheme (OAuth 2.0 flows, API keys, HTTP)",
    pkg: EXAMPLES,
    file: "3.0/json/security.json",
    tools: 15,
    skipped: 0,
    check: ({ provider, report }) => {
      expect(provider.oauth2Config?.tokenURL).toBe("http://example.com/oauth/token");
      expect(report.warnings.map((w) => w.path)).toContain("import.document.components.securitySchemes['basic']");
    },
  },
  {
    label: "OpenAPI 3.0 with circular schemas",
    pkg: EXAMPLES,
    file: "3.0/json/schema-circular.json",
    tools: 3,
    skipped: 0,
  },
  {
    label: "GitHub Enterprise Server 3.17, 966 operations (Octokit)",
    pkg: OCTOKIT,
    file: "generated/ghes-3.17.json",
    asObject: true,
    tools: 966,
    skipped: 0,
    check: ({ provider, report }) => {
      // The two multipart operations are tools that send multipart/form-data (docs/api-rules.md §15a).
      expect(provider.tools.find((t) => t.method === "PUT" && t.path === "/manage/v1/config/license")).toMatchObject({
        method: "PUT",
        reqContentType: "multipart/form-data",
      });
      expect(
        provider.tools.find((t) => t.description.includes("OpenAPI operation issues/list-for-repo ")),
      ).toMatchObject({
        name: "listIssuesForRepo",
        method: "GET",
        path: "/repos/{owner}/{repo}/issues",
      });
    },
  },
];

const ajv = new Ajv2020({ strict: false });

describe.each(FIXTURES)("$label", (fixture) => {
  it(`imports ${fixture.tools} tools and skips ${fixture.skipped}`, async () => {
    const text = packageFile(fixture.pkg, fixture.file);
    const document = fixture.asObject ? JSON.parse(text) : text;
    const { result } = await run(
      services,
      I.importProvider(actor(fixture.label), importBody(document, { dryRun: true })),
    );
    expect(result.report.added).toHaveLength(fixture.tools);
    expect(result.report.skipped).toHaveLength(fixture.skipped);
    expect(result.provider.tools).toHaveLength(fixture.tools);
    const names = result.provider.tools.map((t) => t.name);
    const compiled = new Set<string>();
    expect(new Set(names).size).toBe(names.length);
    for (const tool of result.provider.tools) {
      expect(tool.name).toMatch(/^[a-z][a-zA-Z0-9]{0,19}$/);
      expect(tool.title.length).toBeLessThanOrEqual(64);
      expect(tool.description).toMatch(/OpenAPI operation /);
      for (const schema of [tool.pathArgsJSONSchema, tool.queryArgsJSONSchema, tool.reqBodyJSONSchema])
        if (Object.keys(schema).length > 0 && !compiled.has(JSON.stringify(schema))) {
          compiled.add(JSON.stringify(schema));
          expect(jsonSchemaProblem(schema)).toBeUndefined();
          expect(() => ajv.compile(schema)).not.toThrow();
        }
    }
    fixture.check?.(result);
  });
});

describe("limits on real documents", () => {
  it("GitHub's api.github.com description (1,223 operations) is over the tool quota: 429 naming the count", async () => {
    const document = JSON.parse(packageFile(OCTOKIT, "generated/api.github.com.json"));
    const error = await refused(services, I.importProvider(actor("github"), importBody(document)));
    expect(error).toMatchObject({
      _tag: "ResourceExhausted",
      detail: "the description maps to 1223 tools; a provider may hold at most 1000",
    });
    expect((await run(services, U.listProviders(actor("github"), {}))).providers).toEqual([]);
  });

  it("the same description as text is over 10 MiB: 400 naming the size", async () => {
    const error = await refused(
      services,
      I.importProvider(actor("github"), importBody(packageFile(OCTOKIT, "generated/api.github.com.json"))),
    );
    expect(error).toMatchObject({
      _tag: "InvalidArgument",
      errors: [{ path: "import.document", message: "is 12.4 MiB; a description may be at most 10 MiB" }],
    });
  });
});
