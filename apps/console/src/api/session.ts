// The signed-in session: one bearer access token for the management API, kept in sessionStorage (it dies
// with the tab, and no other origin can read it). Components subscribe to changes with useSession().
import { useSyncExternalStore } from "react";

const KEY = "mcpsm.console.token";
const listeners = new Set<() => void>();

/** The current access token, or "" when signed out. */
export const currentToken = (): string => sessionStorage.getItem(KEY) ?? "";

/** Signs in with `token` ("" signs out). */
export const setToken = (token: string): void => {
  if (token === "") sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, token);
  for (const listener of listeners) listener();
};

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** The current token, re-rendering the caller when it changes. */
export const useSession = (): string => useSyncExternalStore(subscribe, currentToken);

/** The claims of a JWT access token, for display only (the service verifies it; the console never does). */
export const tokenClaims = (token: string): { sub?: string; scope?: string; exp?: number } => {
  try {
    const payload = token.split(".")[1] ?? "";
    return JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))) as { sub?: string };
  } catch {
    return {};
  }
};
