import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import { expect } from "vitest";

// The OAuth client side of the flow tests: an MCP host's in-memory OAuth client, and a user agent that
// follows redirects by hand, keeps cookies and consents by pasting a server token.

/** An in-memory OAuth client (what an MCP host keeps per server), recording where it was sent. */
export class MemoryOAuthClient implements OAuthClientProvider {
  info: Parameters<NonNullable<OAuthClientProvider["saveClientInformation"]>>[0] | undefined;
  saved: Parameters<OAuthClientProvider["saveTokens"]>[0] | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return "http://127.0.0.1:1/callback";
  }
  get clientMetadata() {
    return {
      client_name: "SDK test client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
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

/** A minimal user agent: follows redirects by hand, keeps cookies, stops at the client's redirect URI. */
export const userAgent = () => {
  const jar = new Map<string, string>();
  const send = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (pair && at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  };
  /** Follows redirects from `url` until a page (returned) or the callback (its URL returned). */
  const follow = async (url: string, init: RequestInit = {}): Promise<{ url: string; res: Response }> => {
    let current = url;
    let res = await send(current, init);
    for (let hops = 0; res.status >= 300 && res.status < 400 && hops < 10; hops++) {
      current = new URL(res.headers.get("location") ?? "", current).href;
      if (current.startsWith("http://127.0.0.1:1/callback")) return { url: current, res };
      res = await send(current);
    }
    return { url: current, res };
  };
  return { follow };
};

/** Consents on the service's page by pasting `token`; the callback URL, or the page when refused. */
export const consent = async (authorizationUrl: URL, token: string) => {
  const agent = userAgent();
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
