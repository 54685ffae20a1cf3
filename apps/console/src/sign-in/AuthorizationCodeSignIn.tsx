import { useEffect, useState } from "react";
import { Button } from "react-aria-components";
import { setToken } from "../api/session.js";
import type { OAuthSettings } from "./settings.js";

// Authorization code + PKCE (RFC 7636, S256) against the authorization server the service is configured
// with, as a public client: the verifier and state live in sessionStorage for the round trip only; the
// redirect comes back to /console itself, and the code is exchanged at the token endpoint (the service adds
// that origin to the page's connect-src).

const PENDING = "mcpsm.console.pkce";

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

const random = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

const redirectUri = (): string => `${window.location.origin}/console`;

/** Starts the flow: a new verifier and state, then the browser goes to the authorization endpoint. */
const start = async (oauth: OAuthSettings): Promise<void> => {
  const verifier = random();
  const state = random();
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const url = new URL(oauth.authorizationEndpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", oauth.clientId);
  url.searchParams.set("redirect_uri", redirectUri());
  url.searchParams.set("scope", oauth.scope);
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", challenge);
  url.searchParams.set("code_challenge_method", "S256");
  if (oauth.audience !== undefined) url.searchParams.set("resource", oauth.audience);
  window.location.assign(url.toString());
};

/** Finishes the flow when the page was opened by the authorization server's redirect. */
const finish = async (oauth: OAuthSettings): Promise<string | undefined> => {
  const params = new URLSearchParams(window.location.search);
  const code = params.get("code");
  const error = params.get("error");
  if (code === null && error === null) return undefined;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? "{}") as { verifier?: string; state?: string };
  sessionStorage.removeItem(PENDING);
  window.history.replaceState(null, "", "/console#/servers");
  if (error !== null) return `the authorization server refused: ${params.get("error_description") ?? error}`;
  if (pending.state === undefined || params.get("state") !== pending.state) return "the sign-in state did not match";
  const response = await fetch(oauth.tokenEndpoint, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: code ?? "",
      redirect_uri: redirectUri(),
      client_id: oauth.clientId,
      code_verifier: pending.verifier ?? "",
    }),
  });
  const body = (await response.json().catch(() => ({}))) as { access_token?: string; error?: string };
  if (!response.ok || typeof body.access_token !== "string")
    return `the token endpoint answered ${response.status}${body.error === undefined ? "" : ` (${body.error})`}`;
  setToken(body.access_token);
  return undefined;
};

/** The "Sign in with …" button, and the redirect's completion. */
export const AuthorizationCodeSignIn = (props: { readonly oauth: OAuthSettings }) => {
  const [error, setError] = useState<string>();
  useEffect(() => {
    finish(props.oauth).then(setError, (e: unknown) => setError(String(e)));
  }, [props.oauth]);
  return (
    <section>
      <Button className="button primary" onPress={() => void start(props.oauth)}>
        Sign in with the authorization server
      </Button>
      {error !== undefined && (
        <p role="alert" className="problem">
          {error}
        </p>
      )}
    </section>
  );
};
