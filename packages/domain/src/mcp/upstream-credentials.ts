/** A tool of a served server as far as its upstream OAuth scopes go. */
export interface ScopedTool {
  readonly provider: { readonly id: string };
  readonly row: { readonly oauth2Scopes: ReadonlyArray<string> };
}

/**
 * The OAuth scopes a server's tools of one provider need, sorted and without repeats (docs/api-rules.md §13):
 * what a consent for that provider asks for, and what a resource read (which declares none) requests.
 */
export const serverScopesOf = (tools: Iterable<ScopedTool>, providerId: string): ReadonlyArray<string> => {
  const scopes = new Set<string>();
  for (const tool of tools)
    if (tool.provider.id === providerId) for (const scope of tool.row.oauth2Scopes) scopes.add(scope);
  return [...scopes].sort();
};

/**
 * True when `url` is under the provider's base URL (same origin, within its path): only there does a resource
 * read carry the provider's credentials (its header values and its OAuth token), never to another address.
 */
export const isOnBaseUrl = (url: URL, baseURL: string): boolean => {
  const base = URL.parse(baseURL);
  if (base === null || base.origin !== url.origin) return false;
  const basePath = base.pathname.replace(/\/+$/, "");
  return url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
};
