// docs/api-rules.md §22, Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, which MCP
// 2026-07-28 prefers to dynamic registration): a client whose `client_id` is an https URL is described by the
// JSON document at that URL. oidc-provider implements the draft (its `clientIdMetadataDocument` feature): the
// URL's rules, the document's checks (its `client_id` is the URL, no shared secret, https URIs), a cache kept
// for the answer's `Cache-Control: max-age` / `Expires` within bounds, and redirect URIs checked against the
// document as against any client's. The service adds the outbound side: every fetch goes through `fetch`, the
// service's policy fetch (the upstream address policy, its deadline, no redirects), and the body cap below.

/** Outbound HTTP under the service's address policy (mcp-runtime's `authFetch`). */
export type OutboundFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The largest metadata document read (oidc-provider refuses a larger body). */
export const MAX_METADATA_DOCUMENT_BYTES = 5 * 1024;

/** The draft version of oidc-provider's implementation, acknowledged (an experimental feature must be). */
const DRAFT = "draft-02";

/** Bounds of a document's cache lifetime, in seconds, whatever its caching headers say. */
export const METADATA_DOCUMENT_CACHE_SECONDS = { min: 60, max: 24 * 3600 } as const;

/**
 * oidc-provider's `fetch` hook: every document it fetches (metadata documents, and any `jwks_uri` or
 * `request_uri`) goes through `outbound`; its own dispatcher and signal are replaced by the policy fetch's.
 */
export const providerFetch =
  (outbound: OutboundFetch) =>
  (url: URL | string, options: { method?: string; headers?: RequestInit["headers"]; body?: RequestInit["body"] }) =>
    outbound(String(url), {
      method: options.method ?? "GET",
      ...(options.headers !== undefined ? { headers: options.headers } : {}),
      ...(options.body !== undefined && options.body !== null ? { body: options.body } : {}),
    });

/**
 * What oidc-provider's configuration gains: with `outbound`, its fetch and the accepting feature; always, the
 * body cap (a document of another configuration stays small too).
 */
export const metadataDocuments = (outbound: OutboundFetch | undefined) => ({
  configuration: {
    ...(outbound !== undefined ? { fetch: providerFetch(outbound) as never } : {}),
    fetchResponseBodyLimits: { "client_id metadata document": MAX_METADATA_DOCUMENT_BYTES } as never,
  },
  features:
    outbound === undefined
      ? {}
      : {
          clientIdMetadataDocument: {
            enabled: true,
            ack: DRAFT,
            cacheDuration: { ...METADATA_DOCUMENT_CACHE_SECONDS },
          } as never,
        },
});
