import type { StoredSecret } from "@mcpsm/domain/storage";
import { expect } from "vitest";
import { at } from "./fixtures.js";
import type { Harness } from "./harness.js";

/**
 * Key rotation finds the one stored secret of `kind` (row `id`, ciphertext `ciphertext`, updated at `at(1)`)
 * among the secrets it pages through and swaps it by compare-and-set: the first swap lands, a second one
 * from the same old value does not. `find` reads the row back; `field` names its ciphertext column.
 */
export const expectSecretRotation = async (
  h: Harness,
  secret: StoredSecret,
  find: () => Promise<unknown>,
  field: string,
) => {
  const secrets = await h.read((tx) => tx.listSecrets(undefined, 100));
  const mine = secrets.filter((s) => s.kind === secret.kind);
  expect(mine).toEqual([secret]);
  expect(await h.run((tx) => tx.replaceSecret(mine[0]!, "v1.n.rotated"))).toBe(true);
  expect(await h.run((tx) => tx.replaceSecret(mine[0]!, "v1.n.again"))).toBe(false);
  expect(await find()).toMatchObject({ [field]: "v1.n.rotated", updatedAt: at(1) });
};
