// The V8 heap settings the service runs with, and the relaunch that applies them when the process was
// started without them (`node dist/main.js`, as the perf harness and most hosts start it).
//
// Why: under load V8's defaults let the young generation grow to 2 × 64 MiB semi-spaces and the old
// generation to up to 4× its live size before the next full collection, and the pages stay resident. The live
// heap of the service is 60–80 MB, its RSS after a load run was 430 MiB and still rising in a soak
// (docs/performance.md, "RSS"). 16 MiB semi-spaces and a 1.5× growing factor keep it near the live size for
// a few per cent more GC time. MALLOC_ARENA_MAX was measured and does nothing here: 90% of the RSS is V8 pages.

/** V8 flags that only take effect when given at process start. */
export const HEAP_FLAGS: ReadonlyArray<string> = ["--max-semi-space-size=16", "--heap-growing-percent=50"];

/** A flag's name without its value. */
const flagName = (flag: string) => flag.split("=")[0] ?? flag;

/** Whether the operator's own flags (command line or NODE_OPTIONS) already decide the young generation's size. */
const heapChosenBy = (execArgv: ReadonlyArray<string>, nodeOptions: string | undefined): boolean => {
  const given = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)].map((arg) => flagName(arg).replaceAll("_", "-"));
  return HEAP_FLAGS.some((flag) => given.includes(flagName(flag))) || given.includes("--max-heap-size");
};

/** How to start the same script again with the heap flags: the argument vector for execve. */
export interface Relaunch {
  readonly file: string;
  readonly args: ReadonlyArray<string>;
}

/**
 * The relaunch to make, or undefined when the process already runs with the heap flags or the operator chose
 * their own heap sizes (on the command line or in NODE_OPTIONS: their choice wins).
 */
export const relaunchFor = (current: {
  readonly execPath: string;
  readonly execArgv: ReadonlyArray<string>;
  readonly argv: ReadonlyArray<string>;
  readonly env: Readonly<Record<string, string | undefined>>;
}): Relaunch | undefined => {
  if (heapChosenBy(current.execArgv, current.env.NODE_OPTIONS)) return undefined;
  const script = current.argv[1];
  if (script === undefined) return undefined;
  return {
    file: current.execPath,
    args: [current.execPath, ...HEAP_FLAGS, ...current.execArgv, script, ...current.argv.slice(2)],
  };
};

/**
 * Replaces this process (same pid, same stdio, same environment) with one running the heap flags, when
 * `relaunchFor` says so and the platform has execve; otherwise returns and the service runs with V8's
 * defaults. Call it first thing, before any module of the service is loaded.
 */
export const relaunchWithHeapSettings = (): void => {
  const relaunch = relaunchFor(process);
  if (relaunch === undefined || typeof process.execve !== "function") return;
  process.execve(relaunch.file, relaunch.args, process.env);
};
