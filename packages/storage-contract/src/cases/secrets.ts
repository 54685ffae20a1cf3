import type { SecretKind } from "@mcpsm/domain/storage";
import { describe, expect, it } from "vitest";
import { provider, TENANT_B, variable, variableId } from "../fixtures.js";
import type { Harness } from "../harness.js";

// listSecrets / replaceSecret: every stored secret of every tenant, in (kind, id) code unit order, paged by
// a cursor; replaceSecret is a compare-and-set on the ciphertext that touches nothing else of the record.

export const secretCases = (h: Harness) =>
  describe("secrets (key rotation)", () => {
    // Mixed-case ids so that a locale collation would order them differently from code units.
    const providers = [
      provider(1, { id: "Zprov000001" }),
      provider(2, { id: "aprov000002", tenant: TENANT_B }),
      provider(3, { id: "Bprov000003", oauth2Config: null }),
      provider(4, {
        id: "bprov000004",
        oauth2Config: { clientID: "c", clientSecretCipher: null, authURL: "", tokenURL: "" },
      }),
    ];
    const variables = [
      variable(1, { id: "Yvari000001", type: "SECRET", value: "v1.k.secret-1" }),
      variable(2, { id: "avari000002", type: "SECRET", value: "v1.k.secret-2", tenant: TENANT_B }),
      variable(3, { id: variableId(3), type: "ENV", value: "plain" }),
    ];

    it("lists SECRET variable values and client secrets of every tenant, in kind then code unit id order", async () => {
      await h.seed({ providers, variables });
      const all = await h.read((tx) => tx.listSecrets(undefined, 100));
      expect(all).toEqual([
        { kind: "providerClientSecret", id: "Zprov000001", ciphertext: providers[0]!.oauth2Config!.clientSecretCipher },
        { kind: "providerClientSecret", id: "aprov000002", ciphertext: providers[1]!.oauth2Config!.clientSecretCipher },
        { kind: "variable", id: "Yvari000001", ciphertext: "v1.k.secret-1" },
        { kind: "variable", id: "avari000002", ciphertext: "v1.k.secret-2" },
      ]);
    });

    it("pages with a cursor without skipping or repeating", async () => {
      await h.seed({ providers, variables });
      const seen: Array<string> = [];
      let after: { kind: SecretKind; id: string } | undefined;
      for (let page = 0; page < 10; page++) {
        const cursor = after;
        const batch = await h.read((tx) => tx.listSecrets(cursor, 1));
        if (batch.length === 0) break;
        expect(batch).toHaveLength(1);
        seen.push(batch[0]!.id);
        after = { kind: batch[0]!.kind, id: batch[0]!.id };
      }
      expect(seen).toEqual(["Zprov000001", "aprov000002", "Yvari000001", "avari000002"]);
    });

    it("replaceSecret swaps the ciphertext only while it is unchanged, and nothing else of the record", async () => {
      await h.seed({ providers, variables });
      const [p, q] = await h.read((tx) => tx.listSecrets(undefined, 100));
      const variableBefore = await h.read((tx) => tx.findVariable("Yvari000001"));
      const providerBefore = await h.read((tx) => tx.findProvider(p!.id));
      expect(
        await h.run((tx) =>
          tx.replaceSecret({ kind: "variable", id: "Yvari000001", ciphertext: "v1.k.secret-1" }, "v1.n.new"),
        ),
      ).toBe(true);
      expect(await h.run((tx) => tx.replaceSecret(p!, "v1.n.client"))).toBe(true);
      // Stale: the ciphertext moved on.
      expect(await h.run((tx) => tx.replaceSecret(p!, "v1.n.other"))).toBe(false);
      // A non-secret variable, a missing record, a record without a secret.
      expect(
        await h.run((tx) => tx.replaceSecret({ kind: "variable", id: variableId(3), ciphertext: "plain" }, "x")),
      ).toBe(false);
      expect(await h.run((tx) => tx.replaceSecret({ kind: "variable", id: variableId(9), ciphertext: "a" }, "x"))).toBe(
        false,
      );
      expect(
        await h.run((tx) =>
          tx.replaceSecret({ kind: "providerClientSecret", id: "Bprov000003", ciphertext: "a" }, "x"),
        ),
      ).toBe(false);
      expect(await h.read((tx) => tx.findVariable("Yvari000001"))).toEqual({ ...variableBefore, value: "v1.n.new" });
      expect(await h.read((tx) => tx.findProvider(p!.id))).toEqual({
        ...providerBefore,
        oauth2Config: { ...providerBefore!.oauth2Config!, clientSecretCipher: "v1.n.client" },
      });
      expect(await h.read((tx) => tx.findProvider(q!.id))).toEqual(providers[1]);
      expect(await h.read((tx) => tx.findVariable(variableId(3)))).toEqual(variables[2]);
    });
  });
