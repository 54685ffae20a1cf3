// The one page a person sees during the service's OAuth flow: consent by proving they may use the server
// (pasting one of its server tokens, or signing in at the identity provider when one is configured), or why
// the flow cannot go on. Plain HTML, no script, every value escaped.

export type ConsentView =
  | {
      readonly kind: "consent";
      /** Where the form posts (the interaction's URL). */
      readonly action: string;
      readonly clientName: string;
      /** The MCP server's URL the client asks access to. */
      readonly resource: string;
      /** Where "sign in" goes, when consent by signing in at the identity provider is on. */
      readonly signIn?: string | undefined;
      readonly problem?: string;
    }
  | { readonly kind: "error"; readonly message: string };

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}
input[type=password]{width:100%;padding:.5rem;font:inherit}button{padding:.5rem 1rem;font:inherit;margin-right:.5rem}
.problem{color:#b00020}code{word-break:break-all}</style></head><body>${body}</body></html>`;

/** The consent page, or an error page. */
export const consentPage = (view: ConsentView): string =>
  view.kind === "error"
    ? page("Cannot continue", `<h1>Cannot continue</h1><p>${escapeHtml(view.message)}</p>`)
    : page(
        "Allow access to an MCP server",
        `<h1>Allow access to an MCP server</h1>
<p><strong>${escapeHtml(view.clientName)}</strong> asks to use the MCP server <code>${escapeHtml(view.resource)}</code> on your behalf.</p>
${view.problem ? `<p class="problem" role="alert">${escapeHtml(view.problem)}</p>` : ""}
${
  view.signIn === undefined
    ? ""
    : `<p>Sign in to allow it, if you may use this server: <a id="signin" href="${escapeHtml(view.signIn)}">Sign in</a></p>
<p>Or:</p>`
}
<p>Paste a server token of this server (<code>mcps_…</code>, from its owner) to allow it.</p>
<form method="post" action="${escapeHtml(view.action)}">
<label for="token">Server token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<p><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></p>
</form>`,
      );
