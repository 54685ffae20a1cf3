import { PermissionDenied } from "@mcpsm/domain/errors";
import { importProvider, OpenApiReader, resyncProvider } from "@mcpsm/domain/openapi-import";
import { READ_ONLY_SCOPES, testActor } from "@mcpsm/domain/testing";
import { Effect, Either } from "effect";
import { describe, expect, it } from "vitest";

// The OpenAPI import runs with ports of its own (it is outside the use-case table) but checks scopes like every
// use case: before reading the document or the store, so a reader that would fail is never reached.
const unreachableReader = OpenApiReader.of({ read: () => Effect.die("the reader must not be reached") });

// Only the reader is provided: the scope check fails before any other service (storage, quotas) is used.
const outcome = (effect: unknown) =>
  Effect.runPromise(
    Effect.either(
      Effect.provideService(effect as Effect.Effect<unknown, unknown, OpenApiReader>, OpenApiReader, unreachableReader),
    ),
  );

describe("OpenAPI import use cases check the actor's scopes first", () => {
  const readOnly = testActor("tenant-a", READ_ONLY_SCOPES);

  it("importProvider with a read-only actor: PermissionDenied naming provider:create", async () => {
    const result = await outcome(importProvider(readOnly, { source: { _tag: "Document", document: {} } }));
    expect(Either.isLeft(result) && result.left).toBeInstanceOf(PermissionDenied);
    expect(JSON.stringify(Either.isLeft(result) && result.left)).toContain("provider:create");
  });

  it("resyncProvider with a read-only actor: PermissionDenied naming provider:update", async () => {
    const result = await outcome(
      resyncProvider(readOnly, { providerId: "Ab3dE5gH9jK", source: { _tag: "Document", document: {} } }),
    );
    expect(Either.isLeft(result) && result.left).toBeInstanceOf(PermissionDenied);
    expect(JSON.stringify(Either.isLeft(result) && result.left)).toContain("provider:update");
  });
});
