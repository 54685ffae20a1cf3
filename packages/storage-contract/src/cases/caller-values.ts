import type { CallerValueFormRow, CallerValueRow } from "@mcpsm/domain/storage";
import { describe, expect, it } from "vitest";
import { at, id, server, serverId, serverToken, serverTokenId, TENANT_A, variable, variableId } from "../fixtures.js";
import { expectBoundedPrune } from "../bounded-prune.js";
import type { Harness } from "../harness.js";
import { expectSecretRotation } from "../secret-rotation.js";

// Per-caller values of variables (docs/api-rules.md §23): one per (variable, principal) — a second put
// replaces the first and keeps its id —, gone with their variable and with the server token they were set
// through, their ciphertexts among the secrets key rotation pages through; forms under way are taken once.

const value = (n: number, override: Partial<CallerValueRow> = {}): CallerValueRow => ({
  id: id("cval", n),
  tenant: TENANT_A,
  variableId: variableId(1),
  principal: `oauth:user-${n}`,
  serverTokenId: null,
  valueCipher: `v1.k.value-${n}`,
  createdAt: at(n),
  updatedAt: at(n),
  ...override,
});

const form = (n: number, override: Partial<CallerValueFormRow> = {}): CallerValueFormRow => ({
  id: `form-digest-${n}`,
  tenant: TENANT_A,
  variableId: variableId(1),
  principal: `oauth:user-${n}`,
  serverTokenId: null,
  providerName: "GitHub",
  expiresAt: at(600 + n),
  createdAt: at(n),
  ...override,
});

export const callerValueCases = (h: Harness) =>
  describe("caller values", () => {
    const seed = () =>
      h.seed({
        variables: [variable(1, { type: "SECRET", perCaller: true }), variable(2, { type: "SECRET", perCaller: true })],
        servers: [server(1)],
        serverTokens: [serverToken(1, serverId(1))],
      });

    it("round-trips, finds a principal's values of several variables, lists per variable in creation order", async () => {
      await seed();
      const rows = [value(2), value(1), value(3, { variableId: variableId(2), principal: "oauth:user-1" })];
      for (const row of rows) expect(await h.run((tx) => tx.putCallerValue(row))).toEqual(row);
      const mine = await h.read((tx) => tx.findCallerValues([variableId(1), variableId(2)], "oauth:user-1"));
      expect([...mine].sort((a, b) => a.id.localeCompare(b.id))).toEqual([rows[1], rows[2]]);
      expect(await h.read((tx) => tx.findCallerValues([variableId(1)], "oauth:nobody"))).toEqual([]);
      expect(await h.read((tx) => tx.findCallerValueById(id("cval", 2)))).toEqual(rows[0]);
      const listed = await h.read((tx) => tx.listCallerValues(variableId(1)));
      expect(listed.map((row) => row.id)).toEqual([id("cval", 1), id("cval", 2)]);
    });

    it("a second put for the same caller replaces the first and keeps its id and creation time", async () => {
      await seed();
      await h.run((tx) => tx.putCallerValue(value(1)));
      const replaced = await h.run((tx) =>
        tx.putCallerValue(value(9, { principal: "oauth:user-1", valueCipher: "v1.k.new", updatedAt: at(50) })),
      );
      expect(replaced).toMatchObject({
        id: id("cval", 1),
        createdAt: at(1),
        valueCipher: "v1.k.new",
        updatedAt: at(50),
      });
      expect(await h.read((tx) => tx.listCallerValues(variableId(1)))).toEqual([replaced]);
    });

    it("refuses a value or a form for a missing variable or server token", async () => {
      await seed();
      for (const override of [{ variableId: "missing0000" }, { serverTokenId: "missing0000" }]) {
        expect(await h.failure((tx) => tx.putCallerValue(value(1, override)))).toMatchObject({
          _tag: "ReferenceViolation",
          kind: "callerValue",
        });
        expect(await h.failure((tx) => tx.insertCallerValueForm(form(1, override)))).toMatchObject({
          _tag: "ReferenceViolation",
          kind: "callerValue",
        });
      }
    });

    it("goes with its variable, its server token, and its server's tokens", async () => {
      await seed();
      await h.seed({ servers: [server(2)], serverTokens: [serverToken(2, serverId(2))] });
      const viaToken = { serverTokenId: serverTokenId(1), principal: `server-token:${serverTokenId(1)}` };
      await h.run((tx) => tx.putCallerValue(value(1, viaToken)));
      await h.run((tx) => tx.insertCallerValueForm(form(1, viaToken)));
      await h.run((tx) =>
        tx.putCallerValue(value(2, { serverTokenId: serverTokenId(2), principal: `server-token:${serverTokenId(2)}` })),
      );
      await h.run((tx) => tx.putCallerValue(value(3, { variableId: variableId(2) })));
      await h.run((tx) => tx.insertCallerValueForm(form(3, { variableId: variableId(2) })));
      await h.run((tx) => tx.putCallerValue(value(4)));
      await h.run((tx) => tx.deleteServerToken(serverTokenId(1)));
      expect(await h.read((tx) => tx.findCallerValueById(id("cval", 1)))).toBeUndefined();
      expect(await h.read((tx) => tx.findCallerValueForm(form(1).id))).toBeUndefined();
      await h.run((tx) => tx.deleteServer(serverId(2)));
      expect(await h.read((tx) => tx.findCallerValueById(id("cval", 2)))).toBeUndefined();
      await h.run((tx) => tx.deleteVariable(variableId(2)));
      expect(await h.read((tx) => tx.findCallerValueById(id("cval", 3)))).toBeUndefined();
      expect(await h.read((tx) => tx.findCallerValueForm(form(3).id))).toBeUndefined();
      // An OAuth caller's value of a variable that stays is untouched.
      expect(await h.read((tx) => tx.findCallerValueById(id("cval", 4)))).toEqual(value(4));
    });

    it("deletes one value", async () => {
      await seed();
      await h.run((tx) => tx.putCallerValue(value(1)));
      await h.run((tx) => tx.deleteCallerValue(id("cval", 1)));
      expect(await h.read((tx) => tx.listCallerValues(variableId(1)))).toEqual([]);
    });

    it("a form under way is found until it is taken, and taken once", async () => {
      await seed();
      const row = form(1);
      await h.run((tx) => tx.insertCallerValueForm(row));
      expect(await h.read((tx) => tx.findCallerValueForm(row.id))).toEqual(row);
      expect(await h.run((tx) => tx.takeCallerValueForm(row.id))).toEqual(row);
      expect(await h.run((tx) => tx.takeCallerValueForm(row.id))).toBeUndefined();
      expect(await h.read((tx) => tx.findCallerValueForm(row.id))).toBeUndefined();
    });

    it("expired forms are pruned in bounded batches, oldest first; live ones stay", async () => {
      await seed();
      await expectBoundedPrune({
        insert: (n, expiresAt) => h.run((tx) => tx.insertCallerValueForm(form(n, { expiresAt }))),
        prune: (before, limit) => h.run((tx) => tx.pruneCallerValueForms(before, limit)),
        find: (n) => h.read((tx) => tx.findCallerValueForm(form(n).id)),
        id: (n) => form(n).id,
      });
    });

    it("key rotation pages through caller values and swaps them by compare-and-set", async () => {
      await seed();
      await h.run((tx) => tx.putCallerValue(value(1)));
      await expectSecretRotation(
        h,
        { kind: "callerValue", id: id("cval", 1), ciphertext: "v1.k.value-1" },
        () => h.read((tx) => tx.findCallerValueById(id("cval", 1))),
        "valueCipher",
      );
    });
  });
