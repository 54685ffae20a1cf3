// The HTML of the credential form and of its outcomes. Everything shown is escaped; nothing shown is a value.

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}.ok{color:#1a7f37}.error{color:#b42318}label{display:block;margin:1rem 0 .25rem;font-weight:600}
input[type=password]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem;font:inherit}code{background:#f3f3f3;padding:0 .2rem}`;

const document = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>
`;

/** The form: the variable's name, the provider it is for, one masked field; `problem` after a refused entry. */
export const formPage = (input: {
  readonly action: string;
  readonly csrf: string;
  readonly variableName: string;
  readonly providerName: string;
  readonly problem?: string | undefined;
}): string =>
  document(
    `Your ${input.variableName}`,
    `<h1>Your value of <code>${escapeHtml(input.variableName)}</code></h1>
<p>A tool of <strong>${escapeHtml(input.providerName)}</strong> needs your own <code>${escapeHtml(input.variableName)}</code>
(for example a personal access token or API key). It is stored encrypted for you alone and sent only to that
provider; your client and its model never see it.</p>
${input.problem === undefined ? "" : `<p class="error">${escapeHtml(input.problem)}</p>`}
<form method="post" action="${escapeHtml(input.action)}" autocomplete="off">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<label for="value">${escapeHtml(input.variableName)}</label>
<input id="value" name="value" type="password" required autocomplete="off" spellcheck="false">
<button type="submit">Save</button>
</form>`,
  );

/** A page saying how it went: `ok` (stored) or an error. */
export const outcomePage = (kind: "ok" | "error", title: string, message: string): string =>
  document(title, `<h1 class="${kind}">${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);

/** Headers of every page: never cached, never framed, no script, forms post only to the service itself. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};
