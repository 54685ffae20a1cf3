import { userAgent } from "@mcpsm/upstream-http/testing";
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import { expect } from "vitest";

// The OAuth client side of the flow tests: an MCP host's in-memory OAuth client, and a user agent that
// follows redirects by hand, keeps cookies and consents by pasting a server token.

/**
 * An in-memory OAuth client (what an MCP host keeps per server), recording where it was sent. It registers
 * by default; given `clientMetadataUrl`, its identity is the metadata document there (no registration).
 */
export class MemoryOAuthClient implements OAuthClientProvider {
  info: Parameters<NonNullable<OAuthClientProvider["saveClientInformation"]>>[0] | undefined;
  saved: Parameters<OAuthClientProvider["saveTokens"]>[0] | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  constructor(
    readonly clientMetadata: OAuthClientProvider["clientMetadata"] = {
      client_name: "SDK test client",
      redirect_uris: [CALLBACK],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
    readonly clientMetadataUrl?: string,
  ) {}
  get redirectUrl() {
    return CALLBACK;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: NonNullable<MemoryOAuthClient["info"]>) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: NonNullable<MemoryOAuthClient["saved"]>) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Where the test clients are sent back to: a port nothing listens on (the user agent stops there). */
export const CALLBACK = "http://127.0.0.1:1/callback";

/** Consents on the service's page by pasting `token`; the callback URL, or the page when refused. */
export const consent = async (authorizationUrl: URL, token: string) => {
  const agent = userAgent(CALLBACK);
  const page = await agent.follow(authorizationUrl.href);
  expect(page.res.status).toBe(200);
  const html = await page.res.text();
  expect(html).toContain("Paste a server token of this server");
  const action = /action="([^"]+)"/.exec(html)?.[1] ?? "";
  return agent.follow(new URL(action, page.url).href, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token, decision: "allow" }).toString(),
  });
};
