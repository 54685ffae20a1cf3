// The two small HTML pages of a consent: done, or what went wrong. Nothing the page shows comes from the
// request unescaped, and none of it is a token.

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** A consent page: `ok` says the connection is made; otherwise `message` says why not. */
export const consentPage = (kind: "ok" | "error", title: string, message: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}.ok{color:#1a7f37}.error{color:#b42318}</style></head>
<body><h1 class="${kind}">${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>
`;

/** Headers of a consent page: never cached, never framed, no script. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
};
