/**
 * The variable-name prefix of a provider, derived from the host of its base URL: a leading `www.` dropped,
 * upper case, every non-alphanumeric turned into `_` (`https://api.github.com/v3` → `API_GITHUB_COM`).
 */
export const secretPrefixOf = (baseURL: string): string =>
  new URL(baseURL).hostname
    .replace(/^www\./i, "")
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "_");
