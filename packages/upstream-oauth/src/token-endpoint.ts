import type { PolicyFetch, UpstreamTokenRequest } from "@mcpsm/upstream-http";
import * as oauth from "oauth4webapi";

// Every exchange with a provider's token endpoint, through oauth4webapi (no hand-written token parsing):
// the grant request, the response checks (JSON, token_type, OAuth error bodies, challenges), and the client
// authentication — client_secret_basic first, client_secret_post when the server refuses basic with
// `invalid_client` (docs/api-rules.md §13). Failures become TokenEndpointFault, whose message is safe to show:
// it names the provider and the reason, never a secret.

/** A token endpoint could not give a usable token; `message` names the provider and never a secret. */
export class TokenEndpointFault extends Error {
  constructor(
    message: string,
    /** `invalid_grant`: the refresh token (or code) is no longer good; the connection must be made again. */
    readonly invalidGrant = false,
  ) {
    super(message);
    this.name = "TokenEndpointFault";
  }
}

/** The client as the provider's oauth2Config describes it. */
export interface OAuthClientSettings {
  readonly providerId: string;
  readonly providerName: string;
  readonly clientID: string;
  readonly tokenURL: string;
  readonly authURL: string;
  /** Decrypted on demand. */
  readonly clientSecret: () => Promise<string>;
  readonly fetch: PolicyFetch;
}

/** A usable token endpoint answer. */
export interface IssuedTokens {
  readonly accessToken: string;
  /** Seconds the access token lives (`expires_in`, required). */
  readonly expiresIn: number;
  readonly refreshToken: string | undefined;
  /** The granted scopes (`scope`), or the requested ones when the server did not say. */
  readonly scopes: ReadonlyArray<string> | undefined;
}

export type ClientAuthMethod = "client_secret_basic" | "client_secret_post";

const clip = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Removes every occurrence of `secret` from `text` (an authorization server might echo what it was sent). */
const scrub = (text: string, secrets: ReadonlyArray<string>) =>
  secrets.reduce((out, secret) => (secret.length >= 4 ? out.split(secret).join("[redacted]") : out), text);

const isInvalidClient = (error: unknown) =>
  (error instanceof oauth.ResponseBodyError && error.error === "invalid_client") ||
  (error instanceof oauth.WWWAuthenticateChallengeError &&
    error.cause.some((challenge) => challenge.parameters.error === "invalid_client"));

/** Why an exchange failed, in words safe to show. */
const reasonOf = (error: unknown): { reason: string; invalidGrant: boolean } => {
  if (error instanceof oauth.ResponseBodyError)
    return {
      reason: `the authorization server answered HTTP ${error.status} ${error.error}${
        error.error_description ? `: ${clip(error.error_description)}` : ""
      }`,
      invalidGrant: error.error === "invalid_grant",
    };
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const first = error.cause[0];
    const code = first?.parameters.error;
    return {
      reason: `the authorization server answered HTTP ${error.status}${code ? ` ${code}` : ""}`,
      invalidGrant: code === "invalid_grant",
    };
  }
  if (error instanceof oauth.OperationProcessingError || error instanceof oauth.UnsupportedOperationError)
    return {
      reason: `the authorization server's answer is not a usable token response (${clip(error.message)})`,
      invalidGrant: false,
    };
  if (error instanceof TypeError && /JSON/i.test(error.message))
    return { reason: "the authorization server's answer is not JSON", invalidGrant: false };
  return { reason: error instanceof Error ? clip(error.message) : "unknown failure", invalidGrant: false };
};

/** Turns oauth4webapi's checked answer into IssuedTokens, refusing a token without `expires_in`. */
const issued = (response: oauth.TokenEndpointResponse): IssuedTokens => {
  if (response.token_type !== "bearer")
    throw new oauth.OperationProcessingError(`token_type '${response.token_type}' is not bearer`);
  if (typeof response.expires_in !== "number" || !(response.expires_in > 0))
    throw new oauth.OperationProcessingError("the token response has no expires_in");
  return {
    accessToken: response.access_token,
    expiresIn: response.expires_in,
    refreshToken: response.refresh_token,
    scopes: typeof response.scope === "string" ? response.scope.split(" ").filter((s) => s !== "") : undefined,
  };
};

/** The token endpoint of one provider, remembering which client authentication method it accepts. */
export class TokenEndpoint {
  private readonly methods = new Map<string, ClientAuthMethod>();

  /** The method that worked last for this client (basic until post was needed). */
  methodFor(settings: OAuthClientSettings): ClientAuthMethod {
    return this.methods.get(`${settings.tokenURL}\u0000${settings.clientID}`) ?? "client_secret_basic";
  }

  /**
   * Runs one grant: `request` sends it with a client authentication; `process` checks the answer. Basic
   * first, then post once when basic is refused as `invalid_client`.
   */
  async grant(
    settings: OAuthClientSettings,
    what: string,
    request: (
      as: oauth.AuthorizationServer,
      client: oauth.Client,
      auth: oauth.ClientAuth,
      options: oauth.TokenEndpointRequestOptions,
    ) => Promise<Response>,
    process: (
      as: oauth.AuthorizationServer,
      client: oauth.Client,
      response: Response,
    ) => Promise<oauth.TokenEndpointResponse>,
    secretsToScrub: ReadonlyArray<string> = [],
    issuer?: string,
  ): Promise<IssuedTokens> {
    const key = `${settings.tokenURL}\u0000${settings.clientID}`;
    const as: oauth.AuthorizationServer = {
      issuer: issuer ?? new URL(settings.tokenURL).origin,
      token_endpoint: settings.tokenURL,
    };
    const client: oauth.Client = { client_id: settings.clientID };
    const options: oauth.TokenEndpointRequestOptions = {
      [oauth.customFetch]: (url: string, init: RequestInit) => settings.fetch(url, init),
      [oauth.allowInsecureRequests]: true,
    };
    let secret = "";
    try {
      secret = await settings.clientSecret();
      const first = this.methods.get(key) ?? "client_secret_basic";
      const authOf = (method: ClientAuthMethod) =>
        method === "client_secret_basic" ? oauth.ClientSecretBasic(secret) : oauth.ClientSecretPost(secret);
      try {
        return issued(await process(as, client, await request(as, client, authOf(first), options)));
      } catch (error) {
        if (first !== "client_secret_basic" || !isInvalidClient(error)) throw error;
        const answer = issued(
          await process(as, client, await request(as, client, authOf("client_secret_post"), options)),
        );
        this.methods.set(key, "client_secret_post");
        return answer;
      }
    } catch (error) {
      const { reason, invalidGrant } = reasonOf(error);
      throw new TokenEndpointFault(
        scrub(
          `could not get an access token for provider '${settings.providerName}' (${what} at ${new URL(settings.tokenURL).host}): ${reason}`,
          [secret, ...secretsToScrub],
        ),
        invalidGrant,
      );
    }
  }

  /** The client credentials grant for `scopes`. */
  clientCredentials(settings: OAuthClientSettings, scopes: ReadonlyArray<string>): Promise<IssuedTokens> {
    const parameters = new URLSearchParams();
    if (scopes.length > 0) parameters.set("scope", scopes.join(" "));
    return this.grant(
      settings,
      "client credentials",
      (as, client, auth, options) => oauth.clientCredentialsGrantRequest(as, client, auth, parameters, options),
      (as, client, response) => oauth.processClientCredentialsResponse(as, client, response),
    );
  }

  /**
   * The authorization code grant (PKCE) for the parameters the callback received, checked by oauth4webapi
   * (`state`, an error answer). oauth2Config names no issuer, so an RFC 9207 `iss` is taken as sent; the
   * signed, single-use state already binds the answer to this provider.
   */
  authorizationCode(
    settings: OAuthClientSettings,
    callbackParameters: URLSearchParams,
    expectedState: string,
    redirectUri: string,
    codeVerifier: string,
  ): Promise<IssuedTokens> {
    const issuer = callbackParameters.get("iss") ?? undefined;
    return this.grant(
      settings,
      "authorization code",
      (as, client, auth, options) =>
        oauth.authorizationCodeGrantRequest(
          as,
          client,
          auth,
          oauth.validateAuthResponse(as, client, callbackParameters, expectedState),
          redirectUri,
          codeVerifier,
          options,
        ),
      (as, client, response) => oauth.processAuthorizationCodeResponse(as, client, response),
      [callbackParameters.get("code") ?? "", codeVerifier],
      issuer,
    );
  }

  /** The refresh token grant. */
  refresh(settings: OAuthClientSettings, refreshToken: string): Promise<IssuedTokens> {
    return this.grant(
      settings,
      "refresh",
      (as, client, auth, options) => oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, options),
      (as, client, response) => oauth.processRefreshTokenResponse(as, client, response),
      [refreshToken],
    );
  }
}

/** The client settings of a token request (or of a consent's provider: what a token request names of it). */
export const clientSettingsOf = (
  request: Pick<UpstreamTokenRequest, "provider" | "clientSecret" | "fetch">,
): OAuthClientSettings => ({
  providerId: request.provider.id,
  providerName: request.provider.name,
  clientID: request.provider.oauth2Config.clientID,
  tokenURL: request.provider.oauth2Config.tokenURL,
  authURL: request.provider.oauth2Config.authURL,
  clientSecret: request.clientSecret,
  fetch: request.fetch,
});
