import { beginCallerValueForm, resolveVariables, submitCallerValue } from "@mcpsm/domain/mcp";
import type { VariableRow } from "@mcpsm/domain/storage";
import { Storage } from "@mcpsm/domain/storage";
import { testActor, testServicesLayer } from "@mcpsm/domain/testing";
import { type DomainServices, USE_CASES } from "@mcpsm/domain/use-cases";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { Effect, Exit, ManagedRuntime, TestClock, TestContext } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// Per-caller values in the domain (docs/api-rules.md §23): only SECRET variables may be per caller; a form
// stores once, within its 10 minutes, encrypted; resolution gives each caller its own value, else the default.

let runtime: ManagedRuntime.ManagedRuntime<DomainServices, never>;
beforeEach(() => {
  runtime = ManagedRuntime.make(testServicesLayer(makeMemoryStorage()));
});
afterEach(() => runtime.dispose());

const alice = testActor("alice");
const caller = (tokenId: string) => ({ kind: "oauth" as const, tenant: "alice", subject: tokenId });

const perCallerVariable = async (value = "") => {
  const record = await runtime.runPromise(
    USE_CASES.createVariable(alice, { variable: { type: "SECRET", name: "API_KEY", value, perCaller: true } }),
  );
  return runtime.runPromise(
    Effect.flatMap(Storage, (s) => s.read((tx) => tx.findVariable(record.id))),
  ) as Promise<VariableRow>;
};

describe("per-caller variables", () => {
  it("only a SECRET variable may be per caller, on create and on update", async () => {
    const refused = await runtime.runPromiseExit(
      USE_CASES.createVariable(alice, { variable: { type: "ENV", name: "PLAIN", value: "x", perCaller: true } }),
    );
    expect(Exit.isFailure(refused) && JSON.stringify(refused.cause)).toContain("variable.perCaller");
    const env = await runtime.runPromise(
      USE_CASES.createVariable(alice, { variable: { type: "ENV", name: "PLAIN", value: "x" } }),
    );
    const patched = await runtime.runPromiseExit(
      USE_CASES.updateVariable(alice, { variableId: env.id, variable: { perCaller: true } }),
    );
    expect(Exit.isFailure(patched) && JSON.stringify(patched.cause)).toContain("variable.perCaller");
  });

  it("a form stores the caller's value once, encrypted; each caller resolves its own, else the default", async () => {
    const variable = await perCallerVariable();
    const id = await runtime.runPromise(
      beginCallerValueForm({ variable, caller: caller("ann"), providerName: "Example" }),
    );
    expect(await runtime.runPromise(submitCallerValue(id, "ann-secret-value", "r1"))).toBe("API_KEY");
    expect(await runtime.runPromise(submitCallerValue(id, "second-value", "r2"))).toBeUndefined();
    const stored = await runtime.runPromise(
      Effect.flatMap(Storage, (s) => s.read((tx) => tx.listCallerValues(variable.id))),
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]?.valueCipher).not.toContain("ann-secret-value");
    const ann = await runtime.runPromise(resolveVariables("alice", ["API_KEY"], caller("ann")));
    expect(ann.values.get("API_KEY")).toBe("ann-secret-value");
    const ben = await runtime.runPromise(resolveVariables("alice", ["API_KEY"], caller("ben")));
    expect(ben.values.has("API_KEY")).toBe(false);
    expect(ben.needed.map((v) => v.name)).toEqual(["API_KEY"]);
    await runtime.runPromise(
      USE_CASES.updateVariable(alice, { variableId: variable.id, variable: { value: "the-default" } }),
    );
    const withDefault = await runtime.runPromise(resolveVariables("alice", ["API_KEY"], caller("ben")));
    expect(withDefault.values.get("API_KEY")).toBe("the-default");
    expect(withDefault.needed).toEqual([]);
  });

  it("an expired or unknown form stores nothing", async () => {
    const variable = await perCallerVariable();
    const expired = await runtime.runPromise(
      Effect.gen(function* () {
        const id = yield* beginCallerValueForm({ variable, caller: caller("cy"), providerName: "Example" });
        yield* TestClock.adjust("601 seconds");
        return yield* submitCallerValue(id, "too-late-value", "r");
      }).pipe(Effect.provide(TestContext.TestContext)),
    );
    expect(expired).toBeUndefined();
    expect(await runtime.runPromise(submitCallerValue("A".repeat(43), "guessed-value", "r"))).toBeUndefined();
    expect(await runtime.runPromise(submitCallerValue("not-an-id", "guessed-value", "r"))).toBeUndefined();
    const stored = await runtime.runPromise(
      Effect.flatMap(Storage, (s) => s.read((tx) => tx.listCallerValues(variable.id))),
    );
    expect(stored).toEqual([]);
  });
});
