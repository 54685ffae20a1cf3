import type { Unavailable } from "@mcpsm/domain/errors";
import {
  type OAuthServerRecordRow,
  oauthServerRecordId,
  type ReadTx,
  Storage,
  type StorageTx,
} from "@mcpsm/domain/storage";
import { SecretCipher } from "@mcpsm/domain/use-cases";
import { Cause, Effect, Exit, Option } from "effect";
import type { Adapter, AdapterPayload } from "oidc-provider";

// oidc-provider's persistence (its Adapter interface) over the storage port, so every instance sharing the
// store sees the same registrations, grants, sessions, codes and refresh tokens, and a restart loses none.
// Nothing that works as a bearer credential is kept in clear: records are keyed by the SHA-256 of their id
// (a refresh token's or authorization code's id is its value), the payload is stored without its `jti`,
// and the two secrets a payload can hold — a session's id (its cookie) and a confidential client's secret —
// are encrypted with the service's SecretCipher (and so re-encrypted by `rekey`).

/** Runs storage effects (the service's ManagedRuntime fits). */
export interface StorageRunner {
  readonly runPromiseExit: <A, E>(effect: Effect.Effect<A, E, Storage | SecretCipher>) => Promise<Exit.Exit<A, E>>;
}

/** How often (at most) one process deletes expired records, and how many per pass. */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 500;

/** The storage operations the adapter and the token verifier use. */
export interface OAuthRecords {
  /** Runs `work` in a transaction; an outage rejects with the store's Unavailable. */
  readonly run: <A>(work: (tx: StorageTx) => Effect.Effect<A, never, SecretCipher>) => Promise<A>;
  /** The payload of record `id` of `model` when it has not expired (with `consumed` once used), or undefined. */
  readonly find: (model: string, id: string) => Promise<AdapterPayload | undefined>;
  /** `find` by a session's uid. */
  readonly findByUid: (model: string, uid: string) => Promise<AdapterPayload | undefined>;
}

/** A pending sign-in at the identity provider (identity-provider-sign-in.ts); its secret is the PKCE verifier. */
export const SIGN_IN_MODEL = "SignIn";

/** Client metadata is no token: it has no `jti`. */
const hasJti = (model: string) => model !== "Client";

/** Storage access for the authorization server. */
export const oauthRecords = (runner: StorageRunner, now: () => Date = () => new Date()): OAuthRecords => {
  const settle = async <A>(effect: Effect.Effect<A, Unavailable, Storage | SecretCipher>): Promise<A> => {
    const exit = await runner.runPromiseExit(effect);
    if (Exit.isSuccess(exit)) return exit.value;
    const failure: Option.Option<Unavailable> = Cause.failureOption(exit.cause);
    throw Option.isSome(failure) ? failure.value : Cause.squash(exit.cause);
  };
  const run = <A>(work: (tx: StorageTx) => Effect.Effect<A, never, SecretCipher>) =>
    settle(Effect.flatMap(Storage, (storage) => storage.transaction(work)));
  const read = <A>(work: (tx: ReadTx) => Effect.Effect<A, never, SecretCipher>) =>
    settle(Effect.flatMap(Storage, (storage) => storage.read(work)));
  /** The payload oidc-provider stored, rebuilt: its id (`jti`) and its secret put back. */
  const live = (row: OAuthServerRecordRow | undefined, id: string | undefined) =>
    Effect.gen(function* () {
      if (row === undefined || (row.expiresAt !== null && row.expiresAt.getTime() <= now().getTime())) return undefined;
      const cipher = yield* SecretCipher;
      const secret = row.secretCipher === null ? undefined : yield* cipher.decrypt(row.secretCipher);
      const payload: Record<string, unknown> = { ...row.payload };
      if (row.model === "Client") {
        if (secret !== undefined) payload.client_secret = secret;
      } else if (row.model === SIGN_IN_MODEL) {
        if (secret !== undefined) payload.verifier = secret;
      } else if (hasJti(row.model)) {
        const jti = id ?? (row.model === "Session" ? secret : undefined);
        if (jti === undefined) return undefined;
        payload.jti = jti;
      }
      if (row.consumedAt !== null) payload.consumed = Math.floor(row.consumedAt.getTime() / 1000);
      return payload as AdapterPayload;
    });
  return {
    run,
    find: (model, id) =>
      read((tx) => Effect.flatMap(tx.findOAuthServerRecord(oauthServerRecordId(model, id)), (row) => live(row, id))),
    findByUid: (model, uid) =>
      read((tx) => Effect.flatMap(tx.findOAuthServerRecordByUid(model, uid), (row) => live(row, undefined))),
  };
};

/**
 * The Adapter class oidc-provider instantiates per model. `grantCredential(grantId)` names the server token
 * a grant being saved was consented with (the consent step records it just before saving).
 */
export const storageAdapter = (
  records: OAuthRecords,
  grantCredential: (grantId: string) => string | undefined,
  options: { readonly unusedClientTtlSeconds?: number } = {},
  now: () => Date = () => new Date(),
): (new (
  model: string,
) => Adapter) => {
  let lastPrune = 0;
  const prune = async () => {
    const at = now().getTime();
    if (at - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = at;
    await records.run((tx) => tx.pruneOAuthServerRecords(new Date(at), PRUNE_BATCH));
  };
  return class StorageAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const model = this.model;
      const { jti: _id, ...withoutId } = payload;
      const { client_secret: clientSecret, ...withoutSecret } = withoutId;
      const stored = JSON.parse(JSON.stringify(model === "Client" ? withoutSecret : withoutId)) as Record<
        string,
        unknown
      >;
      // A session's id is its cookie; a confidential client's secret is its password.
      const secret =
        model === "Session" ? id : model === "Client" && typeof clientSecret === "string" ? clientSecret : undefined;
      const isGrant = model === "Grant";
      // A registered client expires unless it is used: its first grant keeps it for good.
      const ttl = model === "Client" && expiresIn === undefined ? options.unusedClientTtlSeconds : expiresIn;
      const usedClient = isGrant && typeof payload.clientId === "string" ? payload.clientId : undefined;
      await records.run((tx) =>
        Effect.gen(function* () {
          const cipher = yield* SecretCipher;
          if (usedClient !== undefined) {
            const client = yield* tx.findOAuthServerRecord(oauthServerRecordId("Client", usedClient));
            if (client !== undefined && client.expiresAt !== null)
              yield* tx.upsertOAuthServerRecord({ ...client, expiresAt: null });
          }
          yield* tx.upsertOAuthServerRecord({
            id: oauthServerRecordId(model, id),
            model,
            payload: stored,
            grantId: isGrant ? id : typeof payload.grantId === "string" ? payload.grantId : null,
            uid: model === "Session" && typeof payload.uid === "string" ? payload.uid : null,
            serverTokenId: isGrant ? (grantCredential(id) ?? null) : null,
            secretCipher: secret === undefined ? null : yield* cipher.encrypt(secret),
            expiresAt: ttl !== undefined && ttl > 0 ? new Date(now().getTime() + ttl * 1000) : null,
            consumedAt: null,
          });
        }),
      );
      await prune();
    }

    find(id: string): Promise<AdapterPayload | undefined> {
      return records.find(this.model, id);
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return records.findByUid(this.model, uid);
    }

    // The device flow is off: nothing has a user code.
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await records.run((tx) => tx.consumeOAuthServerRecord(oauthServerRecordId(this.model, id), now()));
    }

    async destroy(id: string): Promise<void> {
      await records.run((tx) => tx.deleteOAuthServerRecord(oauthServerRecordId(this.model, id)));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await records.run((tx) => tx.deleteOAuthServerRecordsOfGrant(this.model, grantId));
    }
  };
};
