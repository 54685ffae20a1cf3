import { useSyncExternalStore } from "react";

// Hash routes (#/servers/Ab3dE5gH9jK): the service serves one page at /console, so deep links never need
// a server-side fallback, and reloading any view works.

const subscribe = (listener: () => void) => {
  window.addEventListener("hashchange", listener);
  return () => window.removeEventListener("hashchange", listener);
};

/** The current route's segments (`#/servers/X` → ["servers", "X"]). */
export const useRoute = (): ReadonlyArray<string> => {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return hash
    .replace(/^#\/?/, "")
    .split("?")[0]!
    .split("/")
    .filter((s) => s !== "")
    .map(decodeURIComponent);
};

/** Goes to a route. */
export const navigate = (path: string): void => {
  window.location.hash = `#${path}`;
};
