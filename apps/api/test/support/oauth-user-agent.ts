// A minimal headless user agent for OAuth flows: follows redirects by hand, keeps cookies per host name (as a
// browser does: the service and an identity provider on another host name never see each other's), and stops
// at the client's redirect URI (which it then visits or not, as the client needs). Consent on the service's page is
// a form post with a pasted server token.

export interface Landing {
  readonly url: string;
  readonly res: Response;
}

export const userAgent = (stopAt: string) => {
  const jars = new Map<string, Map<string, string>>();
  const send = async (url: string, init: RequestInit = {}) => {
    const host = new URL(url).hostname;
    const jar = jars.get(host) ?? new Map<string, string>();
    jars.set(host, jar);
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
  const follow = async (url: string, init: RequestInit = {}): Promise<Landing> => {
    let current = url;
    let res = await send(current, init);
    for (let hops = 0; res.status >= 300 && res.status < 400 && hops < 10; hops++) {
      current = new URL(res.headers.get("location") ?? "", current).href;
      if (current.startsWith(stopAt)) return { url: current, res };
      res = await send(current);
    }
    return { url: current, res };
  };
  return { follow };
};

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
