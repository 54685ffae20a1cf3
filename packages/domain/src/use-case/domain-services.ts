import { Layer } from "effect";
import { hmacPageTokenSigner, PageTokenSigner } from "../secrets/page-token-signer.js";
import { SecretCipher } from "../secrets/secret-cipher.js";
import { NO_RESPONSE_SHAPING, ResponseShaping } from "../response-shaping/response-shaping-port.js";
import { Storage } from "../storage/storage-port.js";
import { DEFAULT_QUOTAS, Quotas } from "../tenancy/quotas.js";
import { randomBytes } from "node:crypto";

/** The services the use cases run with. */
export type DomainServices = Storage | SecretCipher | PageTokenSigner | Quotas | ResponseShaping;

/** What a caller hands over to run the use cases. */
export interface DomainServicesOptions {
  /** A storage adapter (for example `makeMemoryStorage()` of @mcpsm/storage-memory). */
  readonly storage: typeof Storage.Service;
  /** Encrypts secrets at rest (for example `aesGcmCipher(key)`). */
  readonly cipher: typeof SecretCipher.Service;
  /**
   * Signs `nextToken`s of provider listings (for example `hmacPageTokenSigner(key)`). Default: a random key
   * of this process, so tokens do not survive a restart or work on another instance.
   */
  readonly pageTokenSigner?: typeof PageTokenSigner.Service | undefined;
  /** Per-tenant limits; unspecified ones take the contract's defaults. */
  readonly quotas?: Partial<typeof Quotas.Service> | undefined;
  /**
   * Checks and tries response filters (docs/api-rules.md §19; the service passes @mcpsm/mcp-runtime's).
   * Default: none, and a write that carries a `responseFilter` is refused.
   */
  readonly responseShaping?: typeof ResponseShaping.Service | undefined;
}

/** One layer with every service the use cases need. */
export const domainServicesLayer = (options: DomainServicesOptions): Layer.Layer<DomainServices> =>
  Layer.mergeAll(
    Layer.succeed(Storage, options.storage),
    Layer.succeed(SecretCipher, options.cipher),
    Layer.succeed(PageTokenSigner, options.pageTokenSigner ?? hmacPageTokenSigner(new Uint8Array(randomBytes(32)))),
    Layer.succeed(Quotas, { ...DEFAULT_QUOTAS, ...options.quotas }),
    Layer.succeed(ResponseShaping, options.responseShaping ?? NO_RESPONSE_SHAPING),
  );
