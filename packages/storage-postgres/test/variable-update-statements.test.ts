import { AuditContext, aesGcmCipherLayer, createVariable, quotasLayer, updateVariable } from "@mcpsm/domain/use-cases";
import { TENANT_A } from "@mcpsm/storage-contract";
import { Effect, Exit, Layer } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStorage } from "../src/index.js";
import { migratedStorage, targets } from "./support/targets.js";

// The write of PATCH /variables/{id} (a SECRET value), run by the domain's use case on the adapter: two round
// trips, the variable's read ahead of the transaction (no connection held for it) and `begin; <update>;
// <audit event>; commit` (on the embedded store each round trip is a message to the database's thread and back,
// and a transaction open between two of them holds the session: docs/performance.md, "embwrites").

for (const target of targets)
  describe(`PATCH /variables statements (${target.name})`, () => {
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
    let counting = false;
    const sent: Array<string> = [];
    const actor = { tenant: TENANT_A, scopes: new Set(["variable:create", "variable:update"]), sub: "tester" };

    beforeAll(async () => {
      handle = await migratedStorage(await target.create(), {
        onStatement: (sql) => {
          if (counting) sent.push(sql);
        },
      });
    });
    afterAll(() => handle?.dispose());

    const layer = Layer.mergeAll(
      Layer.suspend(() => handle.layer),
      quotasLayer(),
      aesGcmCipherLayer(new Uint8Array(32).fill(7)),
      Layer.succeed(AuditContext, {
        tenant: TENANT_A,
        sub: "tester",
        clientId: "",
        requestId: "request-1",
        operation: "updateVariable",
      }),
    );
    const run = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<typeof layer>>) =>
      Effect.runPromiseExit(effect.pipe(Effect.provide(layer)));

    it("reads the variable ahead, then updates it with BEGIN, its audit event and COMMIT in one round trip", async () => {
      const made = await run(createVariable(actor, { variable: { type: "SECRET", name: "TOKEN", value: "one" } }));
      if (!Exit.isSuccess(made)) throw new Error("the variable was not made");
      const findStored = () => Effect.runPromise(handle.storage.read((tx) => tx.findVariable(made.value.id)));
      const before = await findStored();
      sent.length = 0;
      counting = true;
      const exit = await run(updateVariable(actor, { variableId: made.value.id, variable: { value: "two" } }));
      counting = false;
      expect(Exit.isSuccess(exit)).toBe(true);
      expect(sent).toHaveLength(2);
      expect(sent[0]).toMatch(/^select [\s\S]* from variables v where v\.id = \$1$/);
      expect(sent[1]).toMatch(
        /^begin;\s*update variables[\s\S]*insert into audit_events[\s\S]*;\s*commit( work;|\s*$)/,
      );
      const stored = await findStored();
      expect(stored?.value).toMatch(/^v1\./);
      expect(stored?.value).not.toBe(before?.value);
      expect(stored?.updatedAt.getTime()).toBeGreaterThan(before?.updatedAt.getTime() ?? Number.POSITIVE_INFINITY);
      const events = await Effect.runPromise(
        handle.storage.read((tx) => tx.searchAuditEvents({ tenant: TENANT_A, limit: 10 })),
      );
      expect(events.items.map((e) => [e.operation, e.fields])).toContainEqual(["updateVariable", ["value"]]);
    });
  });
