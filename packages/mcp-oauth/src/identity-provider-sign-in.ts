import { oauthServerRecordId } from "@mcpsm/domain/storage";
import * as oauth from "oauth4webapi";
import { SecretCipher } from "@mcpsm/domain/use-cases";
import { Effect } from "effect";
import { type OAuthRecords, SIGN_IN_MODEL } from "./storage-adapter.js";

// Consent by signing in at the identity provider the management API trusts (AUTH_*): the consent page's
// "Sign in" runs the authorization code flow with PKCE there (oauth4webapi), as a confidential or public
// client of it, asking for an access token for the management API (RFC 8707 `resource` = AUTH_AUDIENCE).
// That token is checked by the management API's own verifier, so the person's tenant is exactly what the
// management API would see. The pending sign-in (state → interaction, PKCE verifier) is kept through the
// storage port, so the identity provider may send the person back to any instance.

export interface SignInOptions {
  /** The identity provider's issuer (its discovery document is at `/.well-known/openid-configuration`). */
  readonly issuer: string;
  readonly clientId: string;
  /** Client secret (client_secret_basic); a public client (PKCE only) without. */
  readonly clientSecret?: string | undefined;
  /** Scopes asked for (e.g. `openid`). */
  readonly scope: string;
  /** The RFC 8707 resource asked for (the management API's audience), when set. */
  readonly resource?: string | undefined;
  /** The tenant of a valid management access token, undefined when it is not valid; throws on an outage. */
  readonly tenantOf: (accessToken: string) => Promise<string | undefined>;
  /** Allows an `http:` identity provider (loopback tests, local development). */
  readonly allowHttp?: boolean | undefined;
}

/** What a sign-in ended with. */
export type SignInOutcome =
  | { readonly kind: "signed-in"; readonly uid: string; readonly tenant: string }
  | { readonly kind: "refused"; readonly uid: string | undefined; readonly status: number; readonly message: string };

export interface IdentityProviderSignIn {
  /** The identity provider's authorization URL for the consent interaction `uid`. */
  readonly start: (uid: string) => Promise<string>;
  /** Completes a sign-in from the callback URL the identity provider sent the person to. */
  readonly finish: (callback: URL) => Promise<SignInOutcome>;
}

const MODEL = SIGN_IN_MODEL;
const PENDING_SECONDS = 600;

/** Consent by signing in at the identity provider `options` names, coming back to `redirectUri`. */
export const identityProviderSignIn = (
  options: SignInOptions,
  records: OAuthRecords,
  redirectUri: string,
): IdentityProviderSignIn => {
  const http = options.allowHttp === true ? { [oauth.allowInsecureRequests]: true } : {};
  const client: oauth.Client = { client_id: options.clientId };
  const clientAuth = options.clientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(options.clientSecret);
  // Discovered once per process (again after a failure).
  let metadata: Promise<oauth.AuthorizationServer> | undefined;
  const server = () => {
    const issuer = new URL(options.issuer);
    metadata ??= oauth
      .discoveryRequest(issuer, { algorithm: "oidc", ...http })
      .then((response) => oauth.processDiscoveryResponse(issuer, response));
    metadata.catch(() => {
      metadata = undefined;
    });
    return metadata;
  };

  const start = async (uid: string) => {
    const as = await server();
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    await records.run((tx) =>
      Effect.flatMap(SecretCipher, (cipher) =>
        Effect.flatMap(cipher.encrypt(verifier), (sealed) =>
          tx.upsertOAuthServerRecord({
            id: oauthServerRecordId(MODEL, state),
            model: MODEL,
            payload: { uid },
            grantId: null,
            uid: null,
            serverTokenId: null,
            secretCipher: sealed,
            expiresAt: new Date(Date.now() + PENDING_SECONDS * 1000),
            consumedAt: null,
          }),
        ),
      ),
    );
    const url = new URL(as.authorization_endpoint ?? "");
    url.searchParams.set("client_id", options.clientId);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("scope", options.scope);
    url.searchParams.set("state", state);
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set("code_challenge_method", "S256");
    if (options.resource !== undefined) url.searchParams.set("resource", options.resource);
    return url.href;
  };

  const finish = async (callback: URL): Promise<SignInOutcome> => {
    const state = callback.searchParams.get("state") ?? "";
    const pending = state === "" ? undefined : await records.find(MODEL, state);
    // One use only: a replayed callback finds nothing.
    if (pending !== undefined) await records.run((tx) => tx.deleteOAuthServerRecord(oauthServerRecordId(MODEL, state)));
    const uid = typeof pending?.uid === "string" ? pending.uid : undefined;
    const verifier = typeof pending?.verifier === "string" ? pending.verifier : undefined;
    if (uid === undefined || verifier === undefined)
      return { kind: "refused", uid, status: 400, message: "this sign-in has expired or was already used" };
    const as = await server();
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(as, client, callback, state);
    } catch {
      return {
        kind: "refused",
        uid,
        status: 403,
        message: "the sign-in was declined or failed at the identity provider",
      };
    }
    let accessToken: string;
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        redirectUri,
        verifier,
        {
          ...http,
          ...(options.resource === undefined
            ? {}
            : { additionalParameters: new URLSearchParams({ resource: options.resource }) }),
        },
      );
      accessToken = (await oauth.processAuthorizationCodeResponse(as, client, response)).access_token;
    } catch {
      return { kind: "refused", uid, status: 502, message: "the identity provider did not complete the sign-in" };
    }
    const tenant = await options.tenantOf(accessToken);
    if (tenant === undefined)
      return { kind: "refused", uid, status: 403, message: "the identity provider's token was not accepted here" };
    return { kind: "signed-in", uid, tenant };
  };

  return { start, finish };
};
