import type { DomainError } from "@mcpsm/domain/errors";
import type { ServerExportDocument } from "@mcpsm/domain/schemas";
import { testActor, testServicesLayer } from "@mcpsm/domain/testing";
import { type DomainServices, USE_CASES, type UseCases } from "@mcpsm/domain/use-cases";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { type Effect, Exit, ManagedRuntime } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// The export and import use cases (docs/api-rules.md §16) called directly, as a library caller would.

type Success<O extends keyof UseCases> = Effect.Effect.Success<ReturnType<UseCases[O]>>;
type Actor = ReturnType<typeof testActor>;

let runtime: ManagedRuntime.ManagedRuntime<DomainServices, never>;
beforeEach(() => {
  runtime = ManagedRuntime.make(testServicesLayer(makeMemoryStorage()));
});
afterEach(() => runtime.dispose());

const exit = <O extends keyof UseCases>(actor: Actor, operation: O, input: Parameters<UseCases[O]>[1]) =>
  runtime.runPromiseExit(
    (USE_CASES[operation] as (a: Actor, i: typeof input) => Effect.Effect<Success<O>, DomainError, DomainServices>)(
      actor,
      input,
    ),
  );
const ok = async <O extends keyof UseCases>(actor: Actor, operation: O, input: Parameters<UseCases[O]>[1]) => {
  const result = await exit(actor, operation, input);
  if (Exit.isFailure(result)) throw new Error(`${operation} failed: ${String(result.cause)}`);
  return result.value;
};
const failure = async <O extends keyof UseCases>(actor: Actor, operation: O, input: Parameters<UseCases[O]>[1]) => {
  const result = await exit(actor, operation, input);
  if (Exit.isSuccess(result) || result.cause._tag !== "Fail") throw new Error(`${operation} did not fail`);
  return result.cause.error;
};

const alice = testActor("alice");
const bob = testActor("bob");

/** What a tenant holds, to compare before and after a refused or dry-run import. */
const holdings = async (actor: Actor) => ({
  servers: await ok(actor, "listServers", {}),
  providers: (await ok(actor, "listProviders", {})).providers,
});

/** Alice's server: provider A (two tools, one chosen), and a prompt of provider B, whose tools it does not use. */
const aliceServer = async () => {
  const a = await ok(alice, "createProvider", {
    provider: { name: "A", baseURL: "https://api.a.example", visibilityType: "PUBLIC" },
  });
  const chosen = await ok(alice, "createProviderTool", {
    providerId: a.id,
    tool: {
      name: "getA",
      method: "GET",
      path: "/a",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference, not a template
      headers: [{ key: "X-Key", value: "${API_A_EXAMPLE_KEY}" }],
    },
  });
  await ok(alice, "createProviderTool", { providerId: a.id, tool: { name: "other", method: "GET", path: "/o" } });
  const b = await ok(alice, "createProvider", { provider: { name: "B", baseURL: "https://api.b.example" } });
  const prompt = await ok(alice, "createProviderPrompt", { providerId: b.id, prompt: { name: "Hello" } });
  await ok(alice, "createVariable", { variable: { type: "ENV", name: "API_A_EXAMPLE_KEY", value: "k" } });
  const server = await ok(alice, "createServer", {
    server: { name: "S", providers: [{ id: a.id, tools: [{ id: chosen.id }] }], prompts: [{ id: prompt.id }] },
  });
  return { a, b, server };
};

describe("exportServer", () => {
  it("lists the provider of a prompt the server holds without its tools, after the server's providers", async () => {
    const { server } = await aliceServer();
    const doc = await ok(alice, "exportServer", { serverId: server.id });
    expect(doc.providers.map((p) => [p.name, p.tools.map((t) => t.name), p.prompts.map((q) => q.name)])).toEqual([
      ["A", ["getA"], []],
      ["B", [], ["Hello"]],
    ]);
    expect(doc.variables).toEqual([{ name: "API_A_EXAMPLE_KEY", type: "ENV" }]);
  });

  it("another tenant's server is NotFound", async () => {
    const { server } = await aliceServer();
    expect(await failure(bob, "exportServer", { serverId: server.id })).toMatchObject({ _tag: "NotFound" });
  });
});

describe("importServer", () => {
  it("reuses another tenant's PUBLIC provider that holds every tool, and copies a private one", async () => {
    const { server, a } = await aliceServer();
    const document = await ok(alice, "exportServer", { serverId: server.id });
    const { stored, result } = await ok(bob, "importServer", { document });
    expect(stored).toBe(true);
    expect(result.report.providers.reused).toEqual([{ id: a.id, name: "A", baseURL: "https://api.a.example" }]);
    expect(result.report.providers.created.map((p) => p.name)).toEqual(["B"]);
    expect(result.report.missingVariables).toEqual([{ name: "API_A_EXAMPLE_KEY", type: "ENV" }]);
    // B joined only for its prompt: it is not one of the server's providers.
    expect(result.server.providers.map((p) => p.id)).toEqual([a.id]);
    expect(result.server.prompts.map((p) => p.name)).toEqual(["Hello"]);
    // The imported server exports as the original did (the copied provider is at its first revision).
    const again = await ok(bob, "exportServer", { serverId: result.server.id ?? "" });
    expect({ ...again, variables: [] }).toEqual({
      ...document,
      providers: document.providers.map((p) => (p.name === "B" ? { ...p, version: 1 } : p)),
      variables: [],
    });
  });

  it("copies a PUBLIC provider of another tenant that lacks a tool of the document", async () => {
    const { server, a } = await aliceServer();
    const document = await ok(alice, "exportServer", { serverId: server.id });
    const [first, ...rest] = document.providers;
    const more: ServerExportDocument = {
      ...document,
      providers: [{ ...first!, tools: [...first!.tools, { name: "newOne", method: "PUT", path: "/n" }] }, ...rest],
    };
    const { result } = await ok(bob, "importServer", { document: more });
    expect(result.report.providers.created.map((p) => p.name)).toEqual(["A", "B"]);
    expect(result.server.providers[0]?.id).not.toBe(a.id);
    // Alice's provider is untouched.
    const aliceTools = (await ok(alice, "getProvider", { providerId: a.id })).tools.map((t) => t.name);
    expect(aliceTools.sort()).toEqual(["getA", "other"]);
  });

  it("a dry run returns the outcome without ids for new records and stores nothing", async () => {
    const { server } = await aliceServer();
    const document = await ok(alice, "exportServer", { serverId: server.id });
    const before = await holdings(bob);
    const { stored, result } = await ok(bob, "importServer", { document, dryRun: true });
    expect(stored).toBe(false);
    expect(result.server.id).toBeUndefined();
    expect(result.report.providers.created).toEqual([{ name: "B", baseURL: "https://api.b.example" }]);
    expect(await holdings(bob)).toEqual(before);
  });

  it("needs provider:create only when it creates something", async () => {
    const { server } = await aliceServer();
    const document = await ok(alice, "exportServer", { serverId: server.id });
    const serverOnly = testActor("bob", ["server:create", "server:list", "provider:list"]);
    const before = await holdings(bob);
    expect(await failure(serverOnly, "importServer", { document })).toMatchObject({
      _tag: "PermissionDenied",
      requiredScope: "provider:create",
    });
    expect(await holdings(bob)).toEqual(before);
    // Without B (the provider bob lacks), the PUBLIC provider A is reused and nothing is created.
    const onlyA = { ...document, providers: document.providers.slice(0, 1) };
    const { result } = await ok(serverOnly, "importServer", { document: onlyA });
    expect(result.report.providers.created).toEqual([]);
  });

  it("checks a library caller's document like the wire decoder does", async () => {
    const bad = {
      format: "mcpsm.server.v1",
      server: { name: "" },
      providers: [{ name: "P", baseURL: "not a url", tools: [], prompts: [], resources: [] }],
      variables: [],
    } as unknown as ServerExportDocument;
    const error = await failure(alice, "importServer", { document: bad });
    expect(error).toMatchObject({ _tag: "InvalidArgument" });
    expect(error._tag === "InvalidArgument" && error.errors.map((e) => e.path).sort()).toEqual([
      "providers[0].baseURL",
      "server.name",
    ]);
  });

  it("refuses a server name the tenant already has, storing nothing", async () => {
    const { server } = await aliceServer();
    const document = await ok(alice, "exportServer", { serverId: server.id });
    const before = await holdings(alice);
    expect(await failure(alice, "importServer", { document })).toMatchObject({ _tag: "AlreadyExists" });
    expect(await holdings(alice)).toEqual(before);
  });

  it("refuses a tenant at its server quota, storing nothing", async () => {
    const { server } = await aliceServer();
    const document = await ok(alice, "exportServer", { serverId: server.id });
    await runtime.dispose();
    runtime = ManagedRuntime.make(testServicesLayer(makeMemoryStorage(), { serversPerTenant: 1 }));
    const { server: full } = await aliceServer();
    const before = await holdings(alice);
    const renamed = { ...document, server: { ...document.server, name: "S2" } };
    expect(await failure(alice, "importServer", { document: renamed })).toMatchObject({
      _tag: "ResourceExhausted",
      detail: "the tenant already has 1 servers",
    });
    expect(await holdings(alice)).toEqual(before);
    expect(before.servers.map((s) => s.id)).toEqual([full.id]);
  });
});
