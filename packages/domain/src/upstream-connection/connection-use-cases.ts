import { Effect } from "effect";
import { AuditContext } from "../audit/audit-context.js";
import type { AUDIT_ONLY_OPERATIONS } from "../audit/audit-schema.js";
import { NotFound } from "../errors/domain-errors.js";
import { newId } from "../ids/id.js";
import type { McpCaller } from "../mcp/server-access.js";
import { SecretCipher } from "../secrets/secret-cipher.js";
import type { ProviderRow, UpstreamConnectionRow } from "../storage/rows.js";
import type { Actor } from "../tenancy/actor.js";
import { blockedByReference, now, ownedProvider, read, transact, visibleProvider } from "../use-case/use-case-kit.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { validateIds } from "../validation/validate-input.js";
import type { UpstreamConnectionList, UpstreamConnectionRecord } from "./connection-schema.js";

// Upstream OAuth connections (docs/api-rules.md §13). A connection belongs to one caller of the MCP
// endpoint — an OAuth caller is (tenant, sub), a server-token caller (tenant, that token) — and is never used
// for another. The management routes list and delete the connections a tenant's callers made; the MCP
// runtime reads, stores and drops them through the functions below, which take no actor (the caller was
// authenticated by the endpoint).

/** How long a consent under way stays usable. */
export const CONSENT_TTL_SECONDS = 600;

/** How many expired consents a new one deletes (bounded, so beginning a consent stays cheap). */
export const CONSENT_PRUNE_BATCH = 100;

/** The principal a connection of `caller` is stored under, and the server token it goes with. */
export const connectionOwner = (
  caller: McpCaller,
): { readonly principal: string; readonly serverTokenId: string | null } =>
  caller.kind === "server-token"
    ? { principal: `server-token:${caller.tokenId}`, serverTokenId: caller.tokenId }
    : { principal: `oauth:${caller.subject ?? caller.tenant}`, serverTokenId: null };

/** True when a connection granted `granted` covers every scope in `needed`. */
export const coversScopes = (granted: ReadonlyArray<string>, needed: ReadonlyArray<string>): boolean =>
  needed.every((scope) => granted.includes(scope));

const toRecord = (row: UpstreamConnectionRow): UpstreamConnectionRecord => ({
  id: row.id,
  principal: row.principal,
  scopes: row.scopes,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  refreshable: row.refreshable,
});

/** Input of `listProviderConnections`. */
export interface ListProviderConnectionsInput {
  readonly providerId: string;
}

/** Input of `deleteProviderConnection`. */
export interface ProviderConnectionRef {
  readonly providerId: string;
  readonly connectionId: string;
}

/** The connections the actor's tenant's callers made to a provider the actor can see (never a token). */
export const listProviderConnections = defineUseCase(
  "listProviderConnections",
  (actor: Actor, { providerId }: ListProviderConnectionsInput) =>
    Effect.gen(function* () {
      yield* validateIds([["id", providerId]]);
      return yield* read((tx) =>
        Effect.gen(function* () {
          yield* visibleProvider(tx, actor, providerId);
          const rows = yield* tx.listUpstreamConnections(providerId, actor.tenant);
          return { connections: rows.map(toRecord) } satisfies UpstreamConnectionList;
        }),
      );
    }),
);

/**
 * Deletes a connection of the actor's tenant to one of its providers: its caller is asked for consent again
 * on its next call.
 */
export const deleteProviderConnection = defineUseCase(
  "deleteProviderConnection",
  (actor: Actor, { providerId, connectionId }: ProviderConnectionRef) =>
    Effect.gen(function* () {
      yield* validateIds([
        ["id", providerId],
        ["connectionID", connectionId],
      ]);
      yield* transact((tx) =>
        Effect.gen(function* () {
          // A write under a provider: 403 on another tenant's PUBLIC provider, as every such write (§4).
          yield* ownedProvider(tx, actor, providerId);
          const row = yield* tx.findUpstreamConnectionById(connectionId);
          if (row === undefined || row.providerId !== providerId || row.tenant !== actor.tenant)
            return yield* new NotFound({ kind: "connection", id: connectionId });
          yield* tx.deleteUpstreamConnection(connectionId);
        }),
      );
    }),
);

/** The tokens a connection holds, decrypted. */
export interface ConnectionTokens {
  readonly accessToken: string;
  readonly refreshToken: string | undefined;
}

/** A stored connection with its tokens. */
export interface UpstreamConnection {
  readonly row: UpstreamConnectionRow;
  readonly tokens: ConnectionTokens;
}

const decryptTokens = (row: UpstreamConnectionRow) =>
  Effect.flatMap(SecretCipher, (cipher) =>
    Effect.map(cipher.decrypt(row.tokensCipher), (plain): UpstreamConnection => {
      const parsed = JSON.parse(plain) as { a: string; r?: string };
      return { row, tokens: { accessToken: parsed.a, refreshToken: parsed.r } };
    }),
  );

/** The connection of `caller` (on a server of `tenant`) to `providerId`, with its tokens; undefined when none. */
export const findUpstreamConnection = (providerId: string, tenant: string, caller: McpCaller) =>
  read((tx) => tx.findUpstreamConnection(providerId, tenant, connectionOwner(caller).principal)).pipe(
    Effect.flatMap((row) => (row === undefined ? Effect.succeed(undefined) : decryptTokens(row))),
  );

/** What a finished consent or a refresh stores. */
export interface ConnectionGrant {
  readonly providerId: string;
  readonly tenant: string;
  /** Whose connection it is (`connectionOwner` of the caller). */
  readonly owner: ReturnType<typeof connectionOwner>;
  readonly scopes: ReadonlyArray<string>;
  readonly tokens: ConnectionTokens;
  /** Seconds the access token lives. */
  readonly expiresIn: number;
}

/** The audit operation of a finished consent: no route, the consent callback (docs/api-rules.md §18). */
export const CONNECTION_MADE_OPERATION: (typeof AUDIT_ONLY_OPERATIONS)[number] = "createProviderConnection";

/**
 * The audit actor of a connection's creation: the caller it belongs to. A server-token caller is named by
 * its token's id (never its value), an OAuth caller by its sub; there is no OAuth client to name.
 */
export const connectionAuditContext = (
  tenant: string,
  principal: string,
  requestId: string,
): typeof AuditContext.Service => ({
  tenant,
  sub: principal.startsWith("oauth:") ? principal.slice("oauth:".length) : principal,
  clientId: "",
  requestId,
  operation: CONNECTION_MADE_OPERATION,
});

/**
 * Stores the tokens of `grant` as the caller's connection (replacing any it had), encrypted. Fails with
 * NotFound when the provider or the caller's server token is gone meanwhile. With `made` (a finished
 * consent) the transaction records the audit event of the connection's creation; a refresh, which only
 * rotates tokens, passes none and records nothing.
 */
export const saveUpstreamConnection = (grant: ConnectionGrant, made?: { readonly requestId: string }) =>
  Effect.gen(function* () {
    const cipher = yield* SecretCipher;
    const at = yield* now;
    const owner = grant.owner;
    const tokensCipher = yield* cipher.encrypt(
      JSON.stringify({
        a: grant.tokens.accessToken,
        ...(grant.tokens.refreshToken === undefined ? {} : { r: grant.tokens.refreshToken }),
      }),
    );
    const row: UpstreamConnectionRow = {
      id: newId(),
      tenant: grant.tenant,
      providerId: grant.providerId,
      principal: owner.principal,
      serverTokenId: owner.serverTokenId,
      scopes: [...new Set(grant.scopes)].sort(),
      tokensCipher,
      refreshable: grant.tokens.refreshToken !== undefined,
      expiresAt: new Date(at.getTime() + grant.expiresIn * 1000),
      createdAt: at,
      updatedAt: at,
    };
    const store = transact((tx) =>
      tx
        .putUpstreamConnection(row)
        .pipe(Effect.catchTag("ReferenceViolation", (violation) => Effect.fail(blockedByReference(violation)))),
    );
    return yield* made === undefined
      ? store
      : Effect.provideService(
          store,
          AuditContext,
          connectionAuditContext(grant.tenant, owner.principal, made.requestId),
        );
  });

/** Deletes a connection (its refresh token was refused: the next call asks for consent again). */
export const dropUpstreamConnection = (connectionId: string) =>
  transact((tx) => tx.deleteUpstreamConnection(connectionId));

/** A consent under way as the callback finds it. */
export interface PendingConsent {
  readonly id: string;
  readonly tenant: string;
  readonly providerId: string;
  readonly principal: string;
  readonly serverTokenId: string | null;
  readonly scopes: ReadonlyArray<string>;
  readonly codeVerifier: string;
  /** The provider as stored now (undefined when it was deleted meanwhile). */
  readonly provider: ProviderRow | undefined;
}

/** Records a consent under way for `caller` and answers its id (the callback's `state` names it). */
export const beginUpstreamConsent = (input: {
  readonly providerId: string;
  readonly tenant: string;
  readonly caller: McpCaller;
  readonly scopes: ReadonlyArray<string>;
  readonly codeVerifier: string;
}) =>
  Effect.gen(function* () {
    const cipher = yield* SecretCipher;
    const at = yield* now;
    const owner = connectionOwner(input.caller);
    const id = newId();
    const codeVerifierCipher = yield* cipher.encrypt(input.codeVerifier);
    yield* transact((tx) =>
      // Consents that expired unused are never taken: each new one clears a bounded batch of them.
      Effect.zipRight(
        tx.pruneUpstreamAuthorizations(at, CONSENT_PRUNE_BATCH),
        tx.insertUpstreamAuthorization({
          id,
          tenant: input.tenant,
          providerId: input.providerId,
          principal: owner.principal,
          serverTokenId: owner.serverTokenId,
          scopes: [...new Set(input.scopes)].sort(),
          codeVerifierCipher,
          expiresAt: new Date(at.getTime() + CONSENT_TTL_SECONDS * 1000),
          createdAt: at,
        }),
      ).pipe(Effect.catchTag("ReferenceViolation", (violation) => Effect.fail(blockedByReference(violation)))),
    );
    return { id, expiresAt: new Date(at.getTime() + CONSENT_TTL_SECONDS * 1000) };
  });

/** Takes (single use) a consent under way; undefined when unknown, used already or expired. */
export const takeUpstreamConsent = (id: string) =>
  Effect.gen(function* () {
    const taken = yield* transact((tx) =>
      Effect.flatMap(tx.takeUpstreamAuthorization(id), (row) =>
        row === undefined
          ? Effect.succeed(undefined)
          : Effect.map(tx.findProvider(row.providerId), (provider) => ({ row, provider })),
      ),
    );
    const row = taken?.row;
    if (taken === undefined || row === undefined || row.expiresAt.getTime() <= (yield* now).getTime()) return undefined;
    const cipher = yield* SecretCipher;
    const codeVerifier = yield* cipher.decrypt(row.codeVerifierCipher);
    const pending: PendingConsent = {
      id: row.id,
      tenant: row.tenant,
      providerId: row.providerId,
      principal: row.principal,
      serverTokenId: row.serverTokenId,
      scopes: row.scopes,
      codeVerifier,
      provider: taken.provider,
    };
    return pending;
  });

/** The provider a consent is for, as stored now (its `oauth2Config` says where to send the person). */
export const upstreamConsentProvider = (providerId: string) => read((tx) => tx.findProvider(providerId));

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const CONNECTION_USE_CASES = { listProviderConnections, deleteProviderConnection } as const;
