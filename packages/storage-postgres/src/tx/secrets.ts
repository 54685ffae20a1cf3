import type { SecretKind } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import type { Operations } from "./operations.js";

// Secrets live in two places: a provider's OAuth client secret (inside its oauth2_config document) and the
// value of a SECRET variable. Key rotation pages through both and replaces each ciphertext.

export const secretOperations: Operations<"listSecrets" | "replaceSecret"> = () => (ctx) => ({
  // Keyset pages over both places, in code unit order (COLLATE "C") as the port requires.
  listSecrets: (after, limit) =>
    Effect.map(
      ctx.rows(
        `select kind, id, ciphertext from (
           select 'providerClientSecret' as kind, id, oauth2_config->>'clientSecretCipher' as ciphertext
             from providers where oauth2_config->>'clientSecretCipher' is not null
           union all
           select 'variable', id, value from variables where type = 'SECRET') s
         where $1::text is null or (kind collate "C", id collate "C") > ($1::text collate "C", $2::text collate "C")
         order by kind collate "C", id collate "C"
         limit $3`,
        [after?.kind ?? null, after?.id ?? null, limit],
      ),
      (result) =>
        result.map((row) => ({
          kind: row.kind as SecretKind,
          id: String(row.id),
          ciphertext: String(row.ciphertext),
        })),
    ),
  replaceSecret: (secret, ciphertext) =>
    Effect.map(
      secret.kind === "variable"
        ? ctx.rows("update variables set value = $3 where id = $1 and type = 'SECRET' and value = $2 returning id", [
            secret.id,
            secret.ciphertext,
            ciphertext,
          ])
        : ctx.rows(
            `update providers set oauth2_config = jsonb_set(oauth2_config, '{clientSecretCipher}', to_jsonb($3::text))
             where id = $1 and oauth2_config->>'clientSecretCipher' = $2 returning id`,
            [secret.id, secret.ciphertext, ciphertext],
          ),
      (result) => result.length > 0,
    ),
});
