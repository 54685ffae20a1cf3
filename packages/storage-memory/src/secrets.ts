import type { SecretKind, StorageTx, StoredSecret } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import type { Tables } from "./tables.js";

// Where each kind of secret lives in the memory tables, as the PostgreSQL adapter's table of places: how
// to read a row's ciphertext (none: the row holds no secret) and how to write a new one. Key rotation
// pages through all of them; a new kind of secret is one entry here (and in the PostgreSQL adapter).

interface SecretPlace {
  readonly list: () => Iterable<{ readonly id: string; readonly ciphertext: string }>;
  /** Writes `next` if the row still holds `expected`; answers whether it did. */
  readonly replace: (id: string, expected: string, next: string) => boolean;
}

const place = <R extends { readonly id: string }>(
  rows: Map<string, R>,
  read: (row: R) => string | null | undefined,
  write: (row: R, ciphertext: string) => R,
): SecretPlace => ({
  *list() {
    for (const row of rows.values()) {
      const ciphertext = read(row);
      if (ciphertext != null) yield { id: row.id, ciphertext };
    }
  },
  replace: (id, expected, next) => {
    const row = rows.get(id);
    if (row === undefined || read(row) !== expected) return false;
    rows.set(id, write(row, next));
    return true;
  },
});

const placesOf = (tables: Tables): { readonly [K in SecretKind]: SecretPlace } => ({
  gitConnectionToken: place(
    tables.gitConnections,
    (row) => row.tokenCipher,
    (row, tokenCipher) => ({ ...row, tokenCipher }),
  ),
  oauthServerRecord: place(
    tables.oauthServerRecords,
    (row) => row.secretCipher,
    (row, secretCipher) => ({ ...row, secretCipher }),
  ),
  providerClientSecret: place(
    tables.providers,
    (row) => row.oauth2Config?.clientSecretCipher,
    (row, clientSecretCipher) =>
      row.oauth2Config == null ? row : { ...row, oauth2Config: { ...row.oauth2Config, clientSecretCipher } },
  ),
  upstreamConnection: place(
    tables.upstreamConnections,
    (row) => row.tokensCipher,
    (row, tokensCipher) => ({ ...row, tokensCipher }),
  ),
  callerValue: place(
    tables.callerValues,
    (row) => row.valueCipher,
    (row, valueCipher) => ({ ...row, valueCipher }),
  ),
  variable: place(
    tables.variables,
    (row) => (row.type === "SECRET" ? row.value : undefined),
    (row, value) => ({ ...row, value }),
  ),
});

/** Code unit order of (kind, id), as the port requires. */
const before = (a: { kind: string; id: string }, b: { kind: string; id: string }) =>
  a.kind < b.kind || (a.kind === b.kind && a.id < b.id);

/** Key rotation's view of the memory tables: every secret, in pages, and the replacement of one. */
export const memorySecrets = (tables: Tables): Pick<StorageTx, "listSecrets" | "replaceSecret"> => {
  const places = placesOf(tables);
  return {
    listSecrets: (after, limit) =>
      Effect.sync(() => {
        const all: Array<StoredSecret> = [];
        for (const kind of Object.keys(places) as Array<SecretKind>)
          for (const { id, ciphertext } of places[kind].list()) all.push({ kind, id, ciphertext });
        return all
          .filter((s) => after === undefined || before(after, s))
          .sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
          .slice(0, limit);
      }),
    replaceSecret: (secret, ciphertext) =>
      Effect.sync(() => places[secret.kind].replace(secret.id, secret.ciphertext, ciphertext)),
  };
};
