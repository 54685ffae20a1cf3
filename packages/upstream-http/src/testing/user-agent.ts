/** Where a followed request ended: its URL and answer. */
export interface Landing {
  readonly url: string;
  readonly res: Response;
}

/**
 * A minimal browser for tests of redirect flows (OAuth consent): keeps cookies per host name (as a browser
 * does: a service and an identity provider on another host name never see each other's), follows redirects by
 * hand and stops at the first redirect to a URL starting with `stopAt` (the client's callback, not opened).
 */
export const userAgent = (stopAt: string) => {
  const jars = new Map<string, Map<string, string>>();
  /** One request with the host's kept cookies, its redirect not followed; keeps the cookies it sets. */
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
  /** Follows redirects from `url` until a page (its URL and answer) or the `stopAt` URL (and the redirect). */
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
  return { send, follow };
};
