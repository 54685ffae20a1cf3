import { userAgent } from "@mcpsm/upstream-http/testing";

// A headless person giving consent: opens the service's consent URL, follows the redirects to the
// authorization server's sign-in form (keeping its cookies), submits it as `user`, and follows the
// redirects back to the service's callback, which it opens (or only returns, to replay or tamper with it).

export interface Landing {
  readonly url: string;
  readonly status: number;
  readonly html: string;
}

export const consentAgent = (callbackPrefix: string) => {
  const { send, follow } = userAgent(callbackPrefix);
  /** Consents as `user`; answers the callback URL the authorization server sent the person to (not opened). */
  const consent = async (consentUrl: string, user: string): Promise<string> => {
    const form = await follow(consentUrl);
    if (form.url.startsWith(callbackPrefix)) return form.url;
    if (form.res.status !== 200) throw new Error(`no sign-in form at ${form.url} (HTTP ${form.res.status})`);
    let page = form;
    // Sign-in, then (when the server asks) consent: the same form, submitted once each.
    for (let step = 0; step < 3 && !page.url.startsWith(callbackPrefix); step++) {
      await page.res.text();
      page = await follow(page.url, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ user }).toString(),
      });
    }
    if (!page.url.startsWith(callbackPrefix))
      throw new Error(`the flow ended at ${page.url} (HTTP ${page.res.status})`);
    return page.url;
  };
  /** Opens a URL of the service (the callback) and reads its page. */
  const open = async (url: string): Promise<Landing> => {
    const res = await send(url);
    return { url, status: res.status, html: await res.text() };
  };
  return { consent, open, follow };
};

/** Consents as `user` and opens the callback; answers its page. */
export const giveConsent = async (consentUrl: string, user: string, callbackPrefix: string): Promise<Landing> => {
  const agent = consentAgent(callbackPrefix);
  return agent.open(await agent.consent(consentUrl, user));
};
