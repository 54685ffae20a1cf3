import { DEFAULT_GIT_SYNC_SETTINGS, type GitSyncSettings } from "@mcpsm/git-sync";
import { Config } from "effect";

/** The git sync worker (docs/api-rules.md §17): whether this instance pushes, and its timing. */
export interface GitSyncConfig extends GitSyncSettings {
  /** GIT_SYNC: false leaves the outbox to other instances (writes still record pending pushes). */
  readonly enabled: boolean;
}

/** For a configuration built in code: on, with the worker's defaults. */
export const DEFAULT_GIT_SYNC_CONFIG: GitSyncConfig = { enabled: true, ...DEFAULT_GIT_SYNC_SETTINGS };

const millis = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "must be a whole number of milliseconds, at least 1", validation: (n) => n >= 1 }),
    Config.withDefault(fallback),
  );

/** GIT_SYNC (default true), GIT_SYNC_DEBOUNCE_MS, GIT_SYNC_MAX_DELAY_MS, GIT_SYNC_POLL_MS. */
export const gitSyncConfig: Config.Config<GitSyncConfig> = Config.all({
  enabled: Config.boolean("GIT_SYNC").pipe(Config.withDefault(true)),
  debounceMs: millis("GIT_SYNC_DEBOUNCE_MS", DEFAULT_GIT_SYNC_SETTINGS.debounceMs),
  maxDelayMs: millis("GIT_SYNC_MAX_DELAY_MS", DEFAULT_GIT_SYNC_SETTINGS.maxDelayMs),
  pollMs: millis("GIT_SYNC_POLL_MS", DEFAULT_GIT_SYNC_SETTINGS.pollMs),
  leaseMs: Config.succeed(DEFAULT_GIT_SYNC_SETTINGS.leaseMs),
  baseBackoffMs: millis("GIT_SYNC_BACKOFF_MS", DEFAULT_GIT_SYNC_SETTINGS.baseBackoffMs),
  maxBackoffMs: Config.succeed(DEFAULT_GIT_SYNC_SETTINGS.maxBackoffMs),
  concurrency: Config.succeed(DEFAULT_GIT_SYNC_SETTINGS.concurrency),
});
