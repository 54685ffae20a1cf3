import { ALL_SCOPES } from "@mcpsm/domain";
import type { DomainError } from "@mcpsm/domain/errors";
import { READ_ONLY_SCOPES, testActor, WRITE_OPERATIONS } from "@mcpsm/domain/testing";
import { type DomainServices, OPERATIONS, requiredScope, USE_CASES, type UseCases } from "@mcpsm/domain/use-cases";
import { type Effect, Exit, type ManagedRuntime } from "effect";
import { beforeEach, describe, expect, it } from "vitest";
import { caller, inTable, services } from "./support/use-case-caller.js";

// Every management use case, called directly on the memory store: no HTTP app, no wire decoding. The inputs
// are the typed inputs a library caller builds.

describe("the domain enforces the scope policy itself", () => {
  let runtime: ManagedRuntime.ManagedRuntime<DomainServices, never>;
  const alice = testActor("alice");
  const readOnly = testActor("alice", READ_ONLY_SCOPES);
  beforeEach(() => {
    runtime = services();
  });

  it("a read-only actor calling any write use case gets PermissionDenied naming the scope, before validation", async () => {
    const { failure } = caller(runtime, new Set());
    expect(WRITE_OPERATIONS.length).toBeGreaterThan(20);
    for (const operation of WRITE_OPERATIONS.filter(inTable)) {
      // The input is not even valid: the scope check comes before anything else.
      const error = await failure(readOnly, operation, {} as never);
      expect({ operation, error }).toMatchObject({
        operation,
        error: { _tag: "PermissionDenied", requiredScope: requiredScope(operation) },
      });
    }
  });

  it("a read-only actor's write changes nothing; the same call with the scope succeeds", async () => {
    const { ok, failure } = caller(runtime, new Set());
    const input = { provider: { name: "GitHub", baseURL: "https://api.github.com" } };
    expect(await failure(readOnly, "createProvider", input)).toMatchObject({ _tag: "PermissionDenied" });
    expect((await ok(readOnly, "listProviders", {})).matchCount).toBe(0);
    await ok(alice, "createProvider", input);
    expect((await ok(readOnly, "listProviders", {})).matchCount).toBe(1);
  });

  it("an actor without scopes is refused every operation; each scope opens exactly its operations", async () => {
    const { exitOf } = {
      exitOf: (actor: ReturnType<typeof testActor>, operation: keyof UseCases) =>
        runtime.runPromiseExit(
          (USE_CASES[operation] as (a: unknown, i: unknown) => Effect.Effect<unknown, DomainError, DomainServices>)(
            actor,
            {},
          ),
        ),
    };
    for (const operation of OPERATIONS.filter(inTable)) {
      const refused = await exitOf(testActor("alice", []), operation);
      expect(Exit.isFailure(refused) && refused.cause._tag === "Fail" && refused.cause.error._tag).toBe(
        "PermissionDenied",
      );
      const granted = await exitOf(testActor("alice", [requiredScope(operation)]), operation);
      const tag = Exit.isFailure(granted) && granted.cause._tag === "Fail" ? granted.cause.error._tag : "success";
      expect({ operation, tag }).not.toEqual({ operation, tag: "PermissionDenied" });
    }
    // The spec's 17, audit:read (docs/api-rules.md §18), gitconnection:create (§17) and approval:decide (§20).
    expect(ALL_SCOPES.length).toBe(20);
  });
});

describe("typed inputs are checked by the use case, not only by the wire decoders", () => {
  const alice = testActor("alice");

  it("a library caller's bad fields get InvalidArgument with every problem located", async () => {
    const runtime = services();
    const { failure } = caller(runtime, new Set());
    const error = await failure(alice, "createProvider", {
      provider: { name: "x".repeat(101), baseURL: "ftp://example.com" },
    });
    expect(error._tag).toBe("InvalidArgument");
    expect(error._tag === "InvalidArgument" && error.errors.map((e) => e.path).sort()).toEqual([
      "provider.baseURL",
      "provider.name",
    ]);
    expect(await failure(alice, "getServer", { serverId: "not-an-id" })).toMatchObject({
      _tag: "InvalidArgument",
      errors: [{ path: "id" }],
    });
    expect(await failure(alice, "listProviders", { limit: 0 })).toMatchObject({
      _tag: "InvalidArgument",
      errors: [{ path: "limit", message: "must be at least 1" }],
    });
    expect(
      await failure(alice, "createVariable", {
        variable: { type: "ENV", name: "A", value: "nul\u0000" },
      }),
    ).toMatchObject({ _tag: "InvalidArgument", errors: [{ path: "variable.value" }] });
    await runtime.dispose();
  });
});
