import { type Landing, userAgent } from "@mcpsm/upstream-http/testing";

// OAuth flows through the headless user agent of @mcpsm/upstream-http/testing (cookies per host name, redirects
// followed by hand up to the client's redirect URI). Consent on the service's page is a form post with a pasted
// server token.

export { type Landing, userAgent };

/** Opens `authorizationUrl`, pastes `token` on the consent page; where the flow lands (the redirect URI). */
export const consentWithServerToken = async (authorizationUrl: string, token: string, stopAt: string) => {
  const agent = userAgent(stopAt);
  const page = await agent.follow(authorizationUrl);
  const html = await page.res.text();
  const action = /action="([^"]+)"/.exec(html)?.[1];
  if (page.res.status !== 200 || action === undefined)
    throw new Error(`no consent page at ${page.url} (HTTP ${page.res.status}): ${html.slice(0, 300)}`);
  return agent.follow(new URL(action.replaceAll("&amp;", "&"), page.url).href, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token, decision: "allow" }).toString(),
  });
};
