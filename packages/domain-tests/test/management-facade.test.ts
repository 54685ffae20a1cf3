import { randomBytes } from "node:crypto";
import { aesGcmCipher, createManagement, InvalidArgument, NotFound, PermissionDenied } from "@mcpsm/domain";
import { READ_ONLY_SCOPES, testActor } from "@mcpsm/domain/testing";
import { OPERATIONS, USE_CASES } from "@mcpsm/domain/use-cases";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";

// The Promise API: the same use cases for callers that do not use effect.

const management = () => createManagement({ storage: makeMemoryStorage(), cipher: aesGcmCipher(randomBytes(32)) });
const alice = testActor("alice");

describe("createManagement", () => {
  it("offers every operation of the scope policy, and nothing else", () => {
    expect(Object.keys(management()).sort()).toEqual(OPERATIONS.filter((operation) => operation in USE_CASES).sort());
  });

  it("resolves with the records the use cases return; each tenant sees its own", async () => {
    const m = management();
    const variable = await m.createVariable(alice, { variable: { type: "ENV", name: "REGION", value: "eu" } });
    expect(variable).toMatchObject({ name: "REGION", value: "eu", type: "ENV" });
    expect(await m.listVariables(alice, {})).toEqual([variable]);
    expect(await m.listVariables(testActor("bob"), {})).toEqual([]);
    await expect(m.getVariable(testActor("bob"), { variableId: variable.id })).rejects.toBeInstanceOf(NotFound);
  });

  it("rejects with the typed errors, which are Errors with a _tag", async () => {
    const m = management();
    const denied = m.createServer(testActor("alice", READ_ONLY_SCOPES), { server: { name: "s" } });
    await expect(denied).rejects.toBeInstanceOf(PermissionDenied);
    await expect(denied).rejects.toBeInstanceOf(Error);
    await expect(denied).rejects.toMatchObject({ _tag: "PermissionDenied", requiredScope: "server:create" });
    await expect(m.createServer(alice, { server: { name: "  " } })).rejects.toBeInstanceOf(InvalidArgument);
  });

  it("rejects with the underlying Error when something breaks that is no domain error", async () => {
    const broken = aesGcmCipher(randomBytes(32));
    const m = createManagement({
      storage: makeMemoryStorage(),
      cipher: { ...broken, encrypt: () => Effect.die(new Error("the key store is gone")) },
    });
    const failed = m.createVariable(alice, { variable: { type: "SECRET", name: "TOKEN", value: "x" } });
    await expect(failed).rejects.toThrow("the key store is gone");
    await expect(failed).rejects.not.toHaveProperty("_tag");
  });
});
