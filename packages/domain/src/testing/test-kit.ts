import { randomBytes } from "node:crypto";
import type { Layer } from "effect";
import { ALL_SCOPES, type Scope } from "../scopes/scope.js";
import { OPERATIONS, type Operation, requiredScope } from "../scopes/scope-policy.js";
import { hmacPageTokenSigner } from "../secrets/page-token-signer.js";
import { aesGcmCipher } from "../secrets/secret-cipher.js";
import type { Storage } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import type { Quotas } from "../tenancy/quotas.js";
import { type DomainServices, domainServicesLayer } from "../use-case/domain-services.js";

/** The scopes that only read (`*:list`, `*:read`): a read-only token. */
export const READ_ONLY_SCOPES: ReadonlyArray<Scope> = ALL_SCOPES.filter(
  (scope) => scope.endsWith(":list") || scope.endsWith(":read"),
);

/** The operations that change something: a read-only actor is refused every one of them. */
export const WRITE_OPERATIONS: ReadonlyArray<Operation> = OPERATIONS.filter(
  (operation) => !READ_ONLY_SCOPES.includes(requiredScope(operation)),
);

/** An actor of `tenant` holding `scopes` (every scope unless told otherwise). */
export const testActor = (tenant: string, scopes: Iterable<Scope> = ALL_SCOPES): Actor => ({
  tenant,
  scopes: new Set(scopes),
});

/** The use cases' services over `storage`, with fresh random keys and the given quotas (defaults otherwise). */
export const testServicesLayer = (
  storage: typeof Storage.Service,
  quotas: Partial<typeof Quotas.Service> = {},
): Layer.Layer<DomainServices> =>
  domainServicesLayer({
    storage,
    cipher: aesGcmCipher(new Uint8Array(randomBytes(32))),
    pageTokenSigner: hmacPageTokenSigner(new Uint8Array(randomBytes(32))),
    quotas,
  });
