/** The longest secretPrefix: with `_` and a name of up to 27 characters it stays within a variable name's 128. */
export const MAX_SECRET_PREFIX_LENGTH = 100;

/**
 * The variable-name prefix of a provider, derived from the host of its base URL: a leading `www.` dropped,
 * upper case, every non-alphanumeric turned into `_` (`https://api.github.com/v3` → `API_GITHUB_COM`). It is
 * always a valid start of a variable name: a host that begins with a digit (an IPv4 address, `1password.com`)
 * gets a leading `_` (`http://127.0.0.1` → `_127_0_0_1`), and a longer one is cut to 100 characters.
 */
export const secretPrefixOf = (baseURL: string): string => {
  const prefix = new URL(baseURL).hostname
    .replace(/^www\./i, "")
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "_");
  return (/^[0-9]/.test(prefix) ? `_${prefix}` : prefix).slice(0, MAX_SECRET_PREFIX_LENGTH);
};
