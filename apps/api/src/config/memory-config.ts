import { Config } from "effect";
import type { QuietCollectionSettings } from "../launcher/quiet-time-garbage.js";

/** How the service gives memory back (docs/performance.md, "RSS: a collection when the service goes quiet"). */
export interface MemorySettings {
  /**
   * The memory-reducing collection once requests stop: MEMORY_QUIET_COLLECT_MS (default 1000; 0: none),
   * MEMORY_QUIET_COLLECT_MIB (default 32) and MEMORY_QUIET_COLLECT_SPACING_S (default 30). Applied by the
   * service's entry point only, not by `startService`.
   */
  readonly quietCollection: QuietCollectionSettings | undefined;
}

/** MEMORY_QUIET_COLLECT_MS (default 1000, 0 turns it off), _MIB (default 32) and _SPACING_S (default 30). */
export const memoryConfig: Config.Config<MemorySettings> = Config.all({
  quietCollection: Config.all([
    Config.integer("MEMORY_QUIET_COLLECT_MS").pipe(
      Config.validate({
        message: "must be a whole number of milliseconds, 0 (off) or more",
        validation: (n) => n >= 0,
      }),
      Config.withDefault(1000),
    ),
    Config.integer("MEMORY_QUIET_COLLECT_MIB").pipe(
      Config.validate({ message: "must be a whole number of MiB, 0 or more", validation: (n) => n >= 0 }),
      Config.withDefault(32),
    ),
    Config.integer("MEMORY_QUIET_COLLECT_SPACING_S").pipe(
      Config.validate({ message: "must be a whole number of seconds, 0 or more", validation: (n) => n >= 0 }),
      Config.withDefault(30),
    ),
  ]).pipe(
    Config.map(([intervalMs, growthMiB, spacingS]) =>
      intervalMs === 0 ? undefined : { intervalMs, minGrowthBytes: growthMiB * 2 ** 20, minSpacingMs: spacingS * 1000 },
    ),
  ),
});
