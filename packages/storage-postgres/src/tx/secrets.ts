import type { SecretKind } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import type { Operations } from "./operations.js";

// Where each kind of secret lives: the query listing (kind, id, ciphertext) and the statement replacing one
// ciphertext if it is still the one read ($1 id, $2 old ciphertext, $3 new). Key rotation pages through
// all of them; a new kind of secret is one entry here (and in the memory store).
const PLACES: { readonly [K in SecretKind]: { readonly list: string; readonly replace: string } } = {
  callerValue: {
    list: "select 'callerValue' as kind, id, value_cipher as ciphertext from caller_values",
    replace: "update caller_values set value_cipher = $3 where id = $1 and value_cipher = $2 returning id",
  },
  gitConnectionToken: {
    list: "select 'gitConnectionToken' as kind, id, token_cipher as ciphertext from git_connections",
    replace: "update git_connections set token_cipher = $3 where id = $1 and token_cipher = $2 returning id",
  },
  oauthServerRecord: {
    list: `select 'oauthServerRecord' as kind, id, secret_cipher as ciphertext from oauth_server_records
             where secret_cipher is not null`,
    replace: "update oauth_server_records set secret_cipher = $3 where id = $1 and secret_cipher = $2 returning id",
  },
  providerClientSecret: {
    list: `select 'providerClientSecret' as kind, id, oauth2_config->>'clientSecretCipher' as ciphertext
             from providers where oauth2_config->>'clientSecretCipher' is not null`,
    replace: `update providers set oauth2_config = jsonb_set(oauth2_config, '{clientSecretCipher}', to_jsonb($3::text))
             where id = $1 and oauth2_config->>'clientSecretCipher' = $2 returning id`,
  },
  upstreamConnection: {
    list: "select 'upstreamConnection' as kind, id, tokens_cipher as ciphertext from upstream_connections",
    replace: "update upstream_connections set tokens_cipher = $3 where id = $1 and tokens_cipher = $2 returning id",
  },
  variable: {
    list: "select 'variable' as kind, id, value as ciphertext from variables where type = 'SECRET'",
    replace: "update variables set value = $3 where id = $1 and type = 'SECRET' and value = $2 returning id",
  },
};

const LIST_SECRETS = `select kind, id, ciphertext from (
    ${Object.values(PLACES)
      .map((place) => place.list)
      .join("\n    union all\n    ")}) s
  where $1::text is null or (kind collate "C", id collate "C") > ($1::text collate "C", $2::text collate "C")
  order by kind collate "C", id collate "C"
  limit $3`;

export const secretOperations: Operations<"listSecrets" | "replaceSecret"> = () => (ctx) => ({
  // Keyset pages over every place, in code unit order (COLLATE "C") as the port requires.
  listSecrets: (after, limit) =>
    Effect.map(ctx.rows(LIST_SECRETS, [after?.kind ?? null, after?.id ?? null, limit]), (result) =>
      result.map((row) => ({
        kind: row.kind as SecretKind,
        id: String(row.id),
        ciphertext: String(row.ciphertext),
      })),
    ),
  replaceSecret: (secret, ciphertext) =>
    Effect.map(
      ctx.rows(PLACES[secret.kind].replace, [secret.id, secret.ciphertext, ciphertext]),
      (result) => result.length > 0,
    ),
});
