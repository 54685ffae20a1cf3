import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { startTestService } from "./support/harness.js";
import { serviceForFile } from "./support/file-service.js";

// `import.url` of POST /providers/import and POST /providers/{id}/import (docs/api-rules.md §15, an extension
// of this service): the service fetches the description under the upstream address policy. The test service
// allows loopback (as every local-upstream test does); link-local stays refused.

const world = serviceForFile({ alice: "url-importer" }, { mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
let host: Loopback;
let base: string;
let title = "Pet Shop";

const petShop = () =>
  stringify({
    openapi: "3.0.3",
    info: { title, version: "1.0.0" },
    servers: [{ url: "https://pets.example/api" }],
    paths: { "/pets": { get: { operationId: "listPets" } }, "/pets/{id}": { delete: { operationId: "dropPet" } } },
  });

beforeAll(async () => {
  host = await listenOnLoopback((req, res) => {
    if (req.url === "/pets.yaml") {
      if (req.headers.authorization !== undefined || req.headers.cookie !== undefined) res.writeHead(401).end();
      else res.writeHead(200, { "content-type": "application/yaml" }).end(petShop());
    } else if (req.url === "/moved") res.writeHead(302, { location: "/pets.yaml" }).end();
    else if (req.url === "/to-metadata") res.writeHead(302, { location: "http://169.254.169.254/latest" }).end();
    else if (req.url === "/big") res.writeHead(200).end("x".repeat(10 * 1024 * 1024 + 1));
    else if (req.url === "/page") res.writeHead(200, { "content-type": "text/html" }).end("<html>hello</html>");
    else res.writeHead(404).end("not here");
  });
  base = host.url;
});

afterAll(() => host?.close());

const urlProblem = async (body: unknown) => {
  const res = await world.alice.api.post("/providers/import", body);
  expect(res.status).toBe(400);
  expect(res.body.code).toBe("INVALID_ARGUMENT");
  return res.body.errors as Array<{ path: string; message: string }>;
};

describe("import.url", () => {
  it("imports a description the service fetches (following a redirect), dry run and for real", async () => {
    const dry = await world.alice.api.post("/providers/import", { import: { url: `${base}/moved`, dryRun: true } });
    expect(dry.status).toBe(200);
    expect(dry.body.report.added.map((t: { name: string }) => t.name)).toEqual(["listPets", "dropPet"]);
    expect((await world.alice.api.get("/providers")).body.providers).toEqual([]);
    const made = await world.alice.api.post("/providers/import", { import: { url: `${base}/pets.yaml` } });
    expect(made.status).toBe(201);
    expect(made.body.provider.name).toBe("Pet Shop");
    expect(made.body.provider.documentURL).toBe(`${base}/pets.yaml`);
    expect(made.body.provider.tools).toHaveLength(2);
    title = "Pet Shop 2";
    const resync = await world.alice.api.post(`/providers/${made.body.provider.id}/import`, {
      import: { url: `${base}/pets.yaml` },
    });
    expect(resync.status).toBe(200);
    expect(resync.body.provider.id).toBe(made.body.provider.id);
    expect(resync.body.report.unchanged).toBe(2);
  });

  it("exactly one of import.document and import.url", async () => {
    const both = await urlProblem({ import: { url: `${base}/pets.yaml`, document: petShop() } });
    expect(both.map((p) => p.path)).toEqual(["import.document", "import.url"]);
    expect(both[0]?.message).toMatch(/not both/);
    const neither = await urlProblem({ import: { dryRun: true } });
    expect(neither.map((p) => p.path)).toEqual(["import.document", "import.url"]);
    const resyncBoth = await world.alice.api.post("/providers/00000000000000000000000000/import", {
      import: { url: `${base}/pets.yaml`, document: petShop() },
    });
    expect(resyncBoth.status).toBe(400);
  });

  it("refuses addresses the upstream policy refuses, also behind a redirect", async () => {
    const direct = await urlProblem({ import: { url: "http://169.254.169.254/latest" } });
    expect(direct).toEqual([
      {
        path: "import.url",
        message: expect.stringMatching(/169\.254\.169\.254 .*not allowed by the upstream network policy/),
      },
    ]);
    const redirected = await urlProblem({ import: { url: `${base}/to-metadata` } });
    expect(redirected).toEqual([
      {
        path: "import.url",
        message: expect.stringMatching(/169\.254\.169\.254 .*not allowed by the upstream network policy/),
      },
    ]);
  });

  it("refuses loopback when UPSTREAM_ALLOWED_NETWORKS does not allow it (the default)", async () => {
    const strict = await startTestService();
    try {
      const bob = await strict.tenant("strict-importer");
      const res = await bob.api.post("/providers/import", { import: { url: `${base}/pets.yaml`, dryRun: true } });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        {
          path: "import.url",
          message: expect.stringMatching(/127\.0\.0\.1 .*not allowed by the upstream network policy/),
        },
      ]);
    } finally {
      await strict.close();
    }
  });

  it("refuses bad URLs, a 404, more than 10 MiB and a page that is no description", async () => {
    expect(await urlProblem({ import: { url: "file:///etc/passwd" } })).toEqual([
      { path: "import.url", message: "must be an http or https URL" },
    ]);
    expect(await urlProblem({ import: { url: `http://me:secret@127.0.0.1:1/x` } })).toEqual([
      { path: "import.url", message: "must not carry credentials" },
    ]);
    expect(await urlProblem({ import: { url: "not a url" } })).toEqual([
      { path: "import.url", message: "must be an absolute http or https URL" },
    ]);
    expect(await urlProblem({ import: { url: `${base}/missing` } })).toEqual([
      { path: "import.url", message: expect.stringMatching(/answered 404/) },
    ]);
    expect(await urlProblem({ import: { url: `${base}/big` } })).toEqual([
      { path: "import.url", message: "the description is larger than 10 MiB" },
    ]);
    const page = await urlProblem({ import: { url: `${base}/page` } });
    expect(page.length).toBeGreaterThan(0);
    expect(page.every((p) => p.path === "import.url" && p.message.startsWith("not a usable description"))).toBe(true);
    expect(await urlProblem({ import: { url: 42 } })).toEqual([{ path: "import.url", message: expect.any(String) }]);
  });
});
