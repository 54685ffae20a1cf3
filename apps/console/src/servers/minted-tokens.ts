// Token values minted in this tab, kept in memory only (never stored): the value is shown once, and "try a
// tool" can use it without asking for it again. Reloading the page forgets them.

const minted = new Map<string, string>();

/** Remembers the value of a token just minted for `serverId`. */
export const rememberToken = (serverId: string, value: string): void => {
  minted.set(serverId, value);
};

/** The last token value minted for `serverId` in this tab, if any. */
export const mintedToken = (serverId: string): string | undefined => minted.get(serverId);
