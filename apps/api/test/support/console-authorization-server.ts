import type { IncomingMessage, ServerResponse } from "node:http";
import { ALL_SCOPES } from "@mcpsm/domain";
import { exportJWK, generateKeyPair } from "jose";
import type { Configuration } from "oidc-provider";
import { listenOnLoopback } from "./loopback.js";

// A real OAuth 2.0 authorization server (oidc-provider) on 127.0.0.1 for the console's sign-in test: the
// console is a public client (`token_endpoint_auth_method: none`) using authorization code + PKCE at
// /oauth2/auth and /oauth2/token (the endpoints the service's OpenAPI document names under AUTH_URL); access
// tokens are JWTs for the management API's audience carrying the management scopes. The person's login and
// consent are one automatic step (the account is `person`), since what is tested is the flow, not a login page.

export const CONSOLE_AUDIENCE = "urn:mcpsm:management";
export const CONSOLE_CLIENT_ID = "mcpsm-console";
export const CONSOLE_ACCOUNT = "person";

export interface ConsoleAuthorizationServer {
  readonly url: string;
  readonly jwksUrl: URL;
  /** Registers the console's client for the service at `serviceUrl` (known only once the service runs). */
  readonly registerConsole: (serviceUrl: string) => Promise<void>;
  /** Requests seen by path (`/oauth2/auth`, `/oauth2/token`, ...). */
  readonly hits: Array<string>;
  readonly close: () => Promise<void>;
}

export const startConsoleAuthorizationServer = async (): Promise<ConsoleAuthorizationServer> => {
  const { default: Provider } = await import("oidc-provider");
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), alg: "ES256", use: "sig", kid: "console-as" };
  const hits: Array<string> = [];
  let handler: ((req: IncomingMessage, res: ServerResponse) => unknown) | undefined;
  const listening = await listenOnLoopback((req, res) => {
    hits.push((req.url ?? "/").split("?")[0] ?? "/");
    if (handler === undefined) {
      res.writeHead(503).end();
      return;
    }
    void handler(req, res);
  });
  const url = listening.url;

  const registerConsole = async (serviceUrl: string) => {
    const configuration: Configuration = {
      clients: [
        {
          client_id: CONSOLE_CLIENT_ID,
          token_endpoint_auth_method: "none",
          redirect_uris: [`${serviceUrl}/console`],
          grant_types: ["authorization_code"],
          response_types: ["code"],
          id_token_signed_response_alg: "ES256",
        },
      ],
      jwks: { keys: [privateJwk as never] },
      cookies: { keys: ["console-test-cookie-key"] },
      scopes: [...ALL_SCOPES],
      routes: { authorization: "/oauth2/auth", token: "/oauth2/token", jwks: "/jwks" },
      enabledJWA: { idTokenSigningAlgValues: ["ES256"] } as never,
      features: {
        devInteractions: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => CONSOLE_AUDIENCE,
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({
            scope: ALL_SCOPES.join(" "),
            audience: CONSOLE_AUDIENCE,
            accessTokenTTL: 600,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "ES256" } },
          }),
        },
      },
      pkce: { required: () => true },
      findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      ttl: { AccessToken: 600, AuthorizationCode: 60, Interaction: 600, Grant: 600, Session: 600, IdToken: 600 },
      // An error page names the error, and the test sees it in `hits`.
      renderError: async (ctx, out) => {
        hits.push(`error: ${out.error}: ${out.error_description ?? ""}`);
        ctx.type = "text/plain";
        ctx.body = `${out.error}: ${out.error_description ?? ""}`;
      },
      loadExistingGrant: async (ctx) => {
        const grantId = ctx.oidc.result?.consent?.grantId;
        return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
      },
    };
    const provider = new Provider(url, configuration);
    const callback = provider.callback();
    handler = async (req, res) => {
      if ((req.url ?? "").startsWith("/interaction/")) {
        const details = await provider.interactionDetails(req, res);
        const grant = new provider.Grant({ accountId: CONSOLE_ACCOUNT, clientId: CONSOLE_CLIENT_ID });
        const asked = String(details.params.scope ?? "").split(" ");
        const granted = asked.filter((s) => (ALL_SCOPES as ReadonlyArray<string>).includes(s)).join(" ");
        // The scopes are known to the server (`scopes`) and to the management API (the resource): both are granted.
        grant.addOIDCScope(granted);
        grant.addResourceScope(CONSOLE_AUDIENCE, granted);
        const grantId = await grant.save();
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: CONSOLE_ACCOUNT }, consent: { grantId } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      await callback(req, res);
    };
  };

  return {
    url,
    jwksUrl: new URL(`${url}/jwks`),
    registerConsole,
    hits,
    close: listening.close,
  };
};
