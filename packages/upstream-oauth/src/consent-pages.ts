import { saveUpstreamConnection, takeUpstreamConsent, upstreamConsentProvider } from "@mcpsm/domain/mcp";
import { SecretCipher } from "@mcpsm/domain/use-cases";
import type { PolicyFetch } from "@mcpsm/upstream-http";
import { Effect } from "effect";
import { type AuthorizationCodeOptions, redirectUriOf } from "./authorization-code.js";
import { consentPage, PAGE_HEADERS } from "./consent-page.js";
import { decodeConsentState } from "./consent-state.js";
import { run } from "./run-effect.js";
import { clientSettingsOf, TokenEndpointFault } from "./token-endpoint.js";

// The public pages of a consent (docs/api-rules.md §13): `GET /oauth2/authorize?state=…` sends the person to
// the provider's authURL (authorization code with PKCE S256, the redirect URI fixed to the service's public
// URL); `GET /oauth2/callback` exchanges the code at tokenURL and stores the connection. A bad, expired or
// replayed state, or an error from the authorization server, shows an HTML error and stores nothing.

/** An HTTP answer of a page. */
export interface PageAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The pages need what the grant that sends people to them needs: the store, the endpoint, the state key. */
export type ConsentPagesOptions = AuthorizationCodeOptions;

const page = (status: number, kind: "ok" | "error", title: string, message: string): PageAnswer => ({
  status,
  headers: PAGE_HEADERS,
  body: consentPage(kind, title, message),
});

const refusedState = {
  malformed: "The link is not a valid consent link.",
  tampered: "The link is not a valid consent link.",
  expired: "The link has expired (consent links are valid for 10 minutes). Call the tool again for a new one.",
} as const;

/** The two pages, over the store and cipher `runner` provides. */
export const consentPages = (options: ConsentPagesOptions) => {
  const { runner } = options;
  const nowSeconds = () => Math.floor(options.now() / 1000);

  const authorize = async (query: URLSearchParams): Promise<PageAnswer> => {
    const state = decodeConsentState(options.stateKey, query.get("state") ?? "", nowSeconds());
    if (typeof state === "string") return page(400, "error", "Cannot connect", refusedState[state]);
    const provider = await run(runner, upstreamConsentProvider(state.providerId));
    const config = provider?.oauth2Config;
    if (provider === undefined || config == null || config.authURL === "")
      return page(400, "error", "Cannot connect", "The provider no longer uses the authorization code flow.");
    const target = new URL(config.authURL);
    target.searchParams.set("response_type", "code");
    target.searchParams.set("client_id", config.clientID);
    target.searchParams.set("redirect_uri", redirectUriOf(options.publicUrl()));
    if (state.scopes.length > 0) target.searchParams.set("scope", state.scopes.join(" "));
    target.searchParams.set("state", query.get("state") ?? "");
    target.searchParams.set("code_challenge", state.codeChallenge);
    target.searchParams.set("code_challenge_method", "S256");
    return {
      status: 302,
      headers: { ...PAGE_HEADERS, Location: target.href },
      body: consentPage("ok", "Redirecting", `Continue to ${target.origin} to connect ${provider.name}.`),
    };
  };

  /** `requestId` names the request in the audit event of the connection it makes. */
  const callback = async (query: URLSearchParams, fetch: PolicyFetch, requestId = ""): Promise<PageAnswer> => {
    const raw = query.get("state") ?? "";
    const state = decodeConsentState(options.stateKey, raw, nowSeconds());
    if (typeof state === "string") return page(400, "error", "Cannot connect", refusedState[state]);
    // Single use: whatever happens next, this consent cannot be finished twice.
    const pending = await run(runner, takeUpstreamConsent(state.consentId));
    if (pending === undefined)
      return page(
        400,
        "error",
        "Cannot connect",
        "This consent link was already used or has expired. Call the tool again for a new one.",
      );
    if (pending.providerId !== state.providerId || pending.scopes.join(" ") !== [...state.scopes].join(" "))
      return page(400, "error", "Cannot connect", "The link is not a valid consent link.");
    const provider = pending.provider;
    const config = provider?.oauth2Config;
    if (provider === undefined || config == null || config.authURL === "")
      return page(400, "error", "Cannot connect", "The provider no longer uses the authorization code flow.");
    const error = query.get("error");
    if (error !== null)
      return page(
        400,
        "error",
        `${provider.name} did not connect`,
        `The authorization server answered ${error.slice(0, 100)}${query.get("error_description") ? `: ${(query.get("error_description") ?? "").slice(0, 300)}` : ""}. Nothing was stored.`,
      );
    const code = query.get("code");
    if (code === null || code === "")
      return page(400, "error", "Cannot connect", "The authorization server sent no code. Nothing was stored.");
    const cipherText = config.clientSecretCipher;
    try {
      const tokens = await options.endpoint.authorizationCode(
        clientSettingsOf({
          provider: { ...provider, oauth2Config: config },
          clientSecret: async () =>
            cipherText === null
              ? ""
              : run(
                  runner,
                  Effect.flatMap(SecretCipher, (cipher) => cipher.decrypt(cipherText)),
                ),
          fetch,
        }),
        query,
        raw,
        redirectUriOf(options.publicUrl()),
        pending.codeVerifier,
      );
      await run(
        runner,
        saveUpstreamConnection(
          {
            providerId: provider.id,
            tenant: pending.tenant,
            owner: { principal: pending.principal, serverTokenId: pending.serverTokenId },
            scopes: tokens.scopes ?? pending.scopes,
            tokens: { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken },
            expiresIn: tokens.expiresIn,
          },
          { requestId },
        ),
      );
    } catch (error) {
      if (error instanceof TokenEndpointFault)
        return page(502, "error", `${provider.name} did not connect`, `${error.message}. Nothing was stored.`);
      return page(503, "error", `${provider.name} did not connect`, "The connection could not be stored; try again.");
    }
    return page(
      200,
      "ok",
      `Connected to ${provider.name}`,
      "You can close this page, return to your client and call the tool again.",
    );
  };

  return { authorize, callback };
};
