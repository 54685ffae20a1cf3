import { Effect } from "effect";
import { FailedPrecondition, NotFound } from "../errors/domain-errors.js";
import { SecretCipher } from "../secrets/secret-cipher.js";
import type { ProviderRow } from "../storage/rows.js";
import type { Actor } from "../tenancy/actor.js";
import {
  alreadyExists,
  blockedByReference,
  checkIfMatch,
  lockProvider,
  lockQuota,
  now,
  ownedProvider,
  read,
  canSee,
  StaleRead,
  transact,
  usedByServers,
} from "../use-case/use-case-kit.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { invalid } from "../validation/decode-write.js";
import { validateIds, validateInput } from "../validation/validate-input.js";
import { listProvidersPage } from "./provider-listing.js";
import { toProviderRecord } from "./provider-record.js";
import { type OAuth2ConfigWrite, ProviderCreate, type ProviderListQuery, ProviderPatch } from "./provider-schema.js";
import { oauth2HeaderProblems } from "./oauth2-credentials.js";
import { newProviderRow, roomForProvider } from "./new-provider.js";
import { checkUpstreamUrls } from "./upstream-address-check.js";

type StoredOAuth2 = ProviderRow["oauth2Config"];

/**
 * Merges a written oauth2Config into the stored one; an omitted clientSecret keeps the stored secret. The
 * written URLs are checked against the upstream address policy (400 at `<root>.oauth2Config.<field>`).
 */
export const mergeOAuth2 = (stored: StoredOAuth2, written: OAuth2ConfigWrite | null | undefined, root = "provider") =>
  Effect.gen(function* () {
    if (written === undefined) return stored;
    if (written === null) return null;
    yield* checkUpstreamUrls(`${root}.oauth2Config`, { authURL: written.authURL, tokenURL: written.tokenURL });
    const cipher = yield* SecretCipher;
    const clientSecretCipher =
      written.clientSecret === undefined
        ? (stored?.clientSecretCipher ?? null)
        : written.clientSecret === ""
          ? null
          : yield* cipher.encrypt(written.clientSecret);
    return {
      clientID: written.clientID ?? stored?.clientID ?? "",
      clientSecretCipher,
      authURL: written.authURL ?? stored?.authURL ?? "",
      tokenURL: written.tokenURL ?? stored?.tokenURL ?? "",
    };
  });

/** Input of `createProvider`: the provider's fields. */
export interface CreateProviderInput {
  readonly provider: ProviderCreate;
}

/** Input of `getProvider`. */
export interface GetProviderInput {
  readonly providerId: string;
}

/** Input of `updateProvider`: the fields to change; `expectedVersion` makes the write conditional (412). */
export interface UpdateProviderInput {
  readonly providerId: string;
  readonly provider: ProviderPatch;
  readonly expectedVersion?: number | undefined;
}

/** Input of `deleteProvider`; `expectedVersion` makes the delete conditional (412). */
export interface DeleteProviderInput {
  readonly providerId: string;
  readonly expectedVersion?: number | undefined;
}

/** Creates a provider owned by the actor's tenant. */
export const createProvider = defineUseCase("createProvider", (actor: Actor, { provider }: CreateProviderInput) =>
  Effect.gen(function* () {
    const input = yield* validateInput("provider", ProviderCreate, provider);
    const oauth2Config = yield* mergeOAuth2(null, input.oauth2Config);
    return yield* transact((tx) =>
      Effect.gen(function* () {
        yield* lockQuota(tx, "providers", actor.tenant);
        yield* roomForProvider(tx, actor.tenant);
        const row = newProviderRow(actor.tenant, yield* now, { ...input, oauth2Config });
        yield* tx.insertProvider(row).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(alreadyExists(e))));
        return toProviderRecord(row, []);
      }),
    );
  }),
);

/** A provider the actor can see, with its tools. */
export const getProvider = defineUseCase("getProvider", (actor: Actor, { providerId: id }: GetProviderInput) =>
  Effect.gen(function* () {
    yield* validateIds([["id", id]]);
    return yield* read((tx) =>
      Effect.gen(function* () {
        const found = yield* tx.findProviderWithTools(id);
        if (found === undefined || !canSee(actor, found.provider)) return yield* new NotFound({ kind: "provider", id });
        return toProviderRecord(found.provider, found.tools);
      }),
    );
  }),
);

/** One page of the providers the actor can see (its own and PUBLIC ones), filtered as the query says. */
export const listProviders = defineUseCase("listProviders", (actor: Actor, query: ProviderListQuery) =>
  listProvidersPage(actor, query),
);

/** Changes a provider of the actor's tenant. */
export const updateProvider = defineUseCase(
  "updateProvider",
  (actor: Actor, { providerId: id, provider, expectedVersion: ifMatch }: UpdateProviderInput) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      const patch = yield* validateInput("provider", ProviderPatch, provider);
      return yield* transact((tx) =>
        Effect.gen(function* () {
          yield* lockProvider(tx, id);
          const stored = yield* ownedProvider(tx, actor, id);
          yield* checkIfMatch("provider", stored.version, ifMatch);
          if (stored.visibilityType === "PUBLIC" && patch.visibilityType === "INTERNAL") {
            const users = (yield* tx.serversReferencing({ kind: "provider", id })).filter(
              (s) => s.tenant !== actor.tenant,
            );
            if (users.length > 0)
              return yield* new FailedPrecondition({
                detail: `provider '${id}' is used by servers of other tenants and must stay PUBLIC`,
                references: [],
              });
          }
          const next: ProviderRow = {
            ...stored,
            apiType: patch.apiType ?? stored.apiType,
            visibilityType: patch.visibilityType ?? stored.visibilityType,
            baseURL: patch.baseURL ?? stored.baseURL,
            documentURL: patch.documentURL ?? stored.documentURL,
            iconURL: patch.iconURL ?? stored.iconURL,
            name: patch.name ?? stored.name,
            description: patch.description ?? stored.description,
            oauth2Config: yield* mergeOAuth2(stored.oauth2Config, patch.oauth2Config),
          };
          const tools = yield* tx.listTools(id);
          if (stored.oauth2Config === null) {
            const problems = oauth2HeaderProblems(next.oauth2Config, tools, "provider.oauth2Config");
            if (problems.length > 0) return yield* invalid(problems);
          }
          if (sameProvider(stored, next)) return toProviderRecord(stored, tools);
          const row: ProviderRow = { ...next, version: stored.version + 1, updatedAt: yield* now };
          const applied = yield* tx
            .updateProvider(row, stored.version)
            .pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(alreadyExists(e))));
          if (!applied) return yield* new StaleRead({ conditional: ifMatch !== undefined });
          return toProviderRecord(row, tools);
        }),
      );
    }),
);

const sameProvider = (a: ProviderRow, b: ProviderRow) =>
  JSON.stringify({ ...a, createdAt: 0, updatedAt: 0 }) === JSON.stringify({ ...b, createdAt: 0, updatedAt: 0 });

/** Deletes a provider of the actor's tenant with its tools, prompts and resources, unless a server uses it. */
export const deleteProvider = defineUseCase(
  "deleteProvider",
  (actor: Actor, { providerId: id, expectedVersion: ifMatch }: DeleteProviderInput) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      yield* transact((tx) =>
        Effect.gen(function* () {
          yield* lockProvider(tx, id);
          const stored = yield* ownedProvider(tx, actor, id);
          yield* checkIfMatch("provider", stored.version, ifMatch);
          const users = yield* tx.serversReferencing({ kind: "provider", id });
          if (users.length > 0) return yield* usedByServers(actor, "provider", id, users);
          yield* tx
            .deleteProvider(id)
            .pipe(Effect.catchTag("ReferenceViolation", (e) => Effect.fail(blockedByReference(e))));
        }),
      );
    }),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const PROVIDER_USE_CASES = {
  createProvider,
  getProvider,
  listProviders,
  updateProvider,
  deleteProvider,
} as const;
