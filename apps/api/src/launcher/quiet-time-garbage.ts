import { collectAllGarbage } from "./memory-reducing-collection.js";

// Under load V8 keeps every heap page it ever needed at once: the young generation at its grown size, old
// space up to its growing limit, and the pages that collections freed, pooled for reuse. It gives them back
// only in a memory-reducing collection, which its memory reducer starts some 8–20 s after allocation stops,
// so a service between bursts of traffic keeps the RSS of its busiest moment (docs/performance.md, "RSS:
// a collection when the service goes quiet"). One such collection once the requests stop returns 60–80 MiB.
// It is taken only when a whole interval passed without a request (it pauses the process, 50–400 ms here
// and up to ~1.2 s on a loaded machine, and a request arriving meanwhile waits), when RSS grew by at least
// `minGrowthBytes` since the last one and when the last one is at least `minSpacingMs` ago, so that a service
// with sparse traffic, where short pauses between requests are the rule, pays at most one collection per
// spacing.

/** How the quiet-time collection is configured: how often to look, and the growth that makes it worth it. */
export interface QuietCollectionSettings {
  /** The interval between looks; a collection needs one whole interval without a request. */
  readonly intervalMs: number;
  /** RSS above its level after the last collection (or start-up) that makes a collection worth its pause. */
  readonly minGrowthBytes: number;
  /** The least time between two collections. */
  readonly minSpacingMs: number;
}

/** What one look sees. */
export interface QuietCollectionProbe {
  /** Requests received since the process started (a counter that only grows). */
  readonly requests: () => number;
  /** Resident set size in bytes, now. */
  readonly rss: () => number;
  /** Runs the memory-reducing collection (synchronously). */
  readonly collect: () => void;
  /** A monotonic clock in milliseconds. */
  readonly nowMs: () => number;
}

/** The collector's memory between looks. */
export interface QuietCollectionState {
  readonly requestsAtLastLook: number;
  readonly rssAfterLastCollection: number;
  readonly lastCollectionAtMs: number;
}

/**
 * Whether to collect now: no request arrived since the last look, RSS grew by at least `minGrowthBytes` since
 * the last collection, and that collection is at least `minSpacingMs` ago.
 */
export const quietCollectionDue = (
  state: QuietCollectionState,
  now: { readonly requests: number; readonly rss: number; readonly atMs: number },
  settings: Pick<QuietCollectionSettings, "minGrowthBytes" | "minSpacingMs">,
): boolean =>
  now.requests === state.requestsAtLastLook &&
  now.rss - state.rssAfterLastCollection >= settings.minGrowthBytes &&
  now.atMs - state.lastCollectionAtMs >= settings.minSpacingMs;

/** A quiet-time collector: `look` is what the interval timer calls; it returns whether it collected. */
export interface QuietCollector {
  readonly look: () => boolean;
}

/** Builds the collector around `probe`, starting from the current request count and RSS. */
export const quietCollector = (settings: QuietCollectionSettings, probe: QuietCollectionProbe): QuietCollector => {
  let state: QuietCollectionState = {
    requestsAtLastLook: probe.requests(),
    rssAfterLastCollection: probe.rss(),
    // The spacing bounds how often traffic can cause a collection; the first one after start-up need not wait.
    lastCollectionAtMs: Number.NEGATIVE_INFINITY,
  };
  return {
    look: () => {
      const now = { requests: probe.requests(), rss: probe.rss(), atMs: probe.nowMs() };
      const due = quietCollectionDue(state, now, settings);
      if (due) probe.collect();
      state = {
        requestsAtLastLook: now.requests,
        lastCollectionAtMs: due ? now.atMs : state.lastCollectionAtMs,
        // After a collection its own result is the new base; otherwise a fall in RSS (V8's memory reducer ran)
        // lowers the base too, so that growth is counted from the lowest level seen since.
        rssAfterLastCollection: due ? probe.rss() : Math.min(state.rssAfterLastCollection, now.rss),
      };
      return due;
    },
  };
};

/**
 * Counts the requests of `server` and looks every `settings.intervalMs` (an unref'd timer: it never keeps the
 * process alive); `onCollected` hears of each collection (RSS before and after, its duration). Returns the
 * function that stops it.
 */
export const startQuietTimeCollection = (
  server: { on: (event: "request", listener: () => void) => unknown },
  settings: QuietCollectionSettings,
  onCollected: (report: { readonly rssBefore: number; readonly rssAfter: number; readonly ms: number }) => void,
): (() => void) => {
  let requests = 0;
  server.on("request", () => {
    requests += 1;
  });
  const collector = quietCollector(settings, {
    requests: () => requests,
    rss: () => process.memoryUsage.rss(),
    collect: () => {
      const rssBefore = process.memoryUsage.rss();
      const started = performance.now();
      collectAllGarbage();
      onCollected({ rssBefore, rssAfter: process.memoryUsage.rss(), ms: performance.now() - started });
    },
    nowMs: () => performance.now(),
  });
  const timer = setInterval(collector.look, settings.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
};
