import { hash, timingSafeEqual } from "node:crypto";
import { Effect } from "effect";
import { NotFound, ResourceExhausted, Unauthenticated } from "../errors/domain-errors.js";
import { newId, randomAlphanumeric } from "../ids/id.js";
import { ownedServer } from "../server/server-use-cases.js";
import type { ServerTokenRow } from "../storage/rows.js";
import type { ReadTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { Quotas } from "../tenancy/quotas.js";
import { blockedByReference, lockServer, now, read, transact } from "../use-case/use-case-kit.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { invalid } from "../validation/decode-write.js";
import { validateIds, validateInput } from "../validation/validate-input.js";
import { toServerTokenRecord } from "./server-token-record.js";
import { SERVER_TOKEN_PREFIX, ServerTokenCreate } from "./server-token-schema.js";

/** 32 base-62 characters carry 190 bits of randomness (docs/api-rules.md §10 asks for at least 160). */
const TOKEN_RANDOM_CHARS = 32;

/** The SHA-256 (hex) under which a token value is stored; the value itself is never kept. */
export const hashServerToken = (value: string): string => hash("sha256", value, "hex");

const tokenOf = (tx: ReadTx, serverId: string, tokenId: string) =>
  Effect.flatMap(tx.findServerToken(tokenId), (row) =>
    row !== undefined && row.serverId === serverId
      ? Effect.succeed(row)
      : Effect.fail(new NotFound({ kind: "token", id: tokenId })),
  );

/** Input of `createServerToken`. */
export interface CreateServerTokenInput {
  readonly serverId: string;
  readonly token: ServerTokenCreate;
}

/** Input of `listServerTokens`. */
export interface ListServerTokensInput {
  readonly serverId: string;
}

/** Input of `getServerToken` and `revokeServerToken`. */
export interface ServerTokenRef {
  readonly serverId: string;
  readonly tokenId: string;
}

/** Mints a token for a server of the actor's tenant; the value is returned this once. */
export const createServerToken = defineUseCase(
  "createServerToken",
  (actor: Actor, { serverId, token }: CreateServerTokenInput) =>
    Effect.gen(function* () {
      yield* validateIds([["id", serverId]]);
      const input = yield* validateInput("token", ServerTokenCreate, token);
      const quotas = yield* Quotas;
      return yield* transact((tx) =>
        Effect.gen(function* () {
          yield* lockServer(tx, serverId);
          yield* ownedServer(tx, actor, serverId);
          const at = yield* now;
          const expiresAt = input.expiresAt == null ? null : new Date(input.expiresAt);
          if (expiresAt !== null && expiresAt.getTime() <= at.getTime())
            return yield* invalid([{ path: "token.expiresAt", message: "must be in the future" }]);
          if ((yield* tx.countServerTokens(serverId)) >= quotas.tokensPerServer)
            return yield* new ResourceExhausted({ detail: `the server already has ${quotas.tokensPerServer} tokens` });
          const value = `${SERVER_TOKEN_PREFIX}${randomAlphanumeric(TOKEN_RANDOM_CHARS)}`;
          const row: ServerTokenRow = {
            id: newId(),
            serverId,
            tenant: actor.tenant,
            createdAt: at,
            expiresAt,
            name: input.name,
            valueHash: hashServerToken(value),
          };
          yield* tx
            .insertServerToken(row)
            .pipe(Effect.catchTag("ReferenceViolation", (e) => Effect.fail(blockedByReference(e))));
          return toServerTokenRecord(row, value);
        }),
      );
    }),
);

/** The tokens of a server of the actor's tenant, without values. */
export const listServerTokens = defineUseCase("listServerTokens", (actor: Actor, { serverId }: ListServerTokensInput) =>
  Effect.gen(function* () {
    yield* validateIds([["id", serverId]]);
    return yield* read((tx) =>
      Effect.gen(function* () {
        yield* ownedServer(tx, actor, serverId);
        return (yield* tx.listServerTokens(serverId)).map((row) => toServerTokenRecord(row));
      }),
    );
  }),
);

/** One token of a server of the actor's tenant, without its value. */
export const getServerToken = defineUseCase("getServerToken", (actor: Actor, { serverId, tokenId }: ServerTokenRef) =>
  Effect.gen(function* () {
    yield* validateIds([
      ["id", serverId],
      ["tokenID", tokenId],
    ]);
    return yield* read((tx) =>
      Effect.gen(function* () {
        yield* ownedServer(tx, actor, serverId);
        return toServerTokenRecord(yield* tokenOf(tx, serverId, tokenId));
      }),
    );
  }),
);

/** Revokes (deletes) a token of a server of the actor's tenant at once, with the OAuth grants made with it. */
export const revokeServerToken = defineUseCase(
  "revokeServerToken",
  (actor: Actor, { serverId, tokenId }: ServerTokenRef) =>
    Effect.gen(function* () {
      yield* validateIds([
        ["id", serverId],
        ["tokenID", tokenId],
      ]);
      yield* transact((tx) =>
        Effect.gen(function* () {
          yield* ownedServer(tx, actor, serverId);
          yield* tokenOf(tx, serverId, tokenId);
          yield* tx.deleteServerToken(tokenId);
          // Grants an OAuth client got by a person pasting this token end with it (docs/mcp.md).
          yield* tx.deleteOAuthServerGrantsOfServerToken(tokenId);
        }),
      );
    }),
);

/**
 * Whether a token expiring at `expiresAt` (null: never) is expired at `atMs` (milliseconds since the epoch):
 * refused from its expiry instant on. Exported so that an answer of `authenticateServerToken` kept between
 * requests is dropped at the same instant (the MCP gate's memo).
 */
export const serverTokenExpired = (expiresAt: Date | null, atMs: number): boolean =>
  expiresAt !== null && expiresAt.getTime() <= atMs;

/** The stored token a presented value belongs to, if it is for `serverId` and neither revoked nor expired. */
export const authenticateServerToken = (serverId: string, value: string) =>
  Effect.gen(function* () {
    // Made only when needed: building an error captures a stack, a cost every accepted call would pay.
    const rejected = () => new Unauthenticated({ detail: "the server token is invalid, revoked or expired" });
    if (!value.startsWith(SERVER_TOKEN_PREFIX)) return yield* rejected();
    const hash = hashServerToken(value);
    const row = yield* read((tx) => tx.findServerTokenByHash(hash));
    const at = yield* now;
    if (
      row === undefined ||
      !timingSafeEqual(Buffer.from(row.valueHash), Buffer.from(hash)) ||
      row.serverId !== serverId ||
      serverTokenExpired(row.expiresAt, at.getTime())
    )
      return yield* rejected();
    return row;
  });

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const SERVER_TOKEN_USE_CASES = {
  createServerToken,
  listServerTokens,
  getServerToken,
  revokeServerToken,
} as const;
