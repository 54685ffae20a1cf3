import { spawnSync } from "node:child_process";

// The memory settings the service runs with, and the relaunch that applies them when the process was started
// without them (`node dist/main.js`, as the perf harness and most hosts start it): both V8 and glibc read
// them only at process start.
//
// Why (measured, docs/performance.md "RSS"): the live JS heap of the service under load is 60–80 MB, yet its
// RSS grew past 600 MiB. V8's defaults let the young generation grow to 2 × 64 MiB semi-spaces and the old
// generation to several times its live size before a full collection, and those pages stay resident;
// 8 MiB semi-spaces and a 1.5× growing factor keep the heap near its live size for a few per cent more GC
// time. glibc's allocator keeps what the I/O threads and large buffers freed: an arena per thread, and a
// mmap threshold that rises after the first large buffer is freed, after which large buffers come from the
// heap and fragment it. Two arenas and a fixed 128 KiB threshold (large buffers mapped and unmapped) give it back.

/** V8 flags that only take effect when given at process start. */
export const HEAP_FLAGS: ReadonlyArray<string> = ["--max-semi-space-size=8", "--heap-growing-percent=50"];

/** glibc malloc tunables, read from the environment when the process starts. */
export const MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "131072",
};

/** A flag's name without its value, spelled with dashes. */
const flagName = (flag: string) => (flag.split("=")[0] ?? flag).replaceAll("_", "-");

/** Whether the operator's own flags (command line or NODE_OPTIONS) already decide the heap's sizes. */
const heapChosenBy = (execArgv: ReadonlyArray<string>, nodeOptions: string | undefined): boolean => {
  const given = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)].map(flagName);
  return [...HEAP_FLAGS.map(flagName), "--max-heap-size"].some((name) => given.includes(name));
};

/** How to start the same script again with the settings: the arguments and environment for execve. */
export interface Relaunch {
  readonly file: string;
  readonly args: ReadonlyArray<string>;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The relaunch to make, or undefined when the process already runs with the settings. What the operator set
 * wins: heap flags on the command line or in NODE_OPTIONS, a MALLOC_* variable in the environment.
 */
export const relaunchFor = (
  current: {
    readonly execPath: string;
    readonly execArgv: ReadonlyArray<string>;
    readonly argv: ReadonlyArray<string>;
    readonly env: Readonly<Record<string, string | undefined>>;
  },
  /** The heap flags this Node accepts, of those asked (all, unless told otherwise: see `acceptedFlags`). */
  accepted: (flags: ReadonlyArray<string>) => ReadonlyArray<string> = (flags) => flags,
): Relaunch | undefined => {
  const flags = heapChosenBy(current.execArgv, current.env.NODE_OPTIONS) ? [] : accepted(HEAP_FLAGS);
  const missingEnv = Object.entries(MALLOC_ENV).filter(([name]) => current.env[name] === undefined);
  const script = current.argv[1];
  if ((flags.length === 0 && missingEnv.length === 0) || script === undefined) return undefined;
  return {
    file: current.execPath,
    args: [current.execPath, ...flags, ...current.execArgv, script, ...current.argv.slice(2)],
    env: { ...current.env, ...Object.fromEntries(missingEnv) },
  };
};

/** Whether `node <flags> -e 0` starts and exits 0: an unknown V8 flag makes Node exit 9 ("bad option"). */
const startsWith = (execPath: string, flags: ReadonlyArray<string>): boolean =>
  spawnSync(execPath, [...flags, "-e", "0"], { stdio: "ignore", timeout: 10_000 }).status === 0;

/**
 * The flags of `flags` that `execPath` accepts: a future Node that drops a V8 flag must not make every start
 * fail. One probe for all of them; only when it fails, one per flag. `refused` hears each flag left out.
 */
export const acceptedFlags = (
  execPath: string,
  flags: ReadonlyArray<string>,
  refused: (flag: string) => void,
  starts: (execPath: string, flags: ReadonlyArray<string>) => boolean = startsWith,
): ReadonlyArray<string> => {
  if (flags.length === 0 || starts(execPath, flags)) return flags;
  return flags.filter((flag) => {
    const ok = starts(execPath, [flag]);
    if (!ok) refused(flag);
    return ok;
  });
};

/** A warning line in the service's log format (pino's JSON), written before the logger exists. */
const warnRefused = (flag: string) =>
  process.stderr.write(
    `${JSON.stringify({ level: 40, time: Date.now(), msg: `launcher: this Node refuses ${flag}; starting without it` })}\n`,
  );

/**
 * Replaces this process (same pid, same stdio) with one running the settings, when `relaunchFor` says so and
 * the platform has execve; otherwise returns and the service runs with the defaults. Call it first thing,
 * before any module of the service is loaded.
 */
export const relaunchWithMemorySettings = (): void => {
  if (typeof process.execve !== "function") return;
  const relaunch = relaunchFor(process, (flags) => acceptedFlags(process.execPath, flags, warnRefused));
  if (relaunch === undefined) return;
  process.execve(relaunch.file, relaunch.args, relaunch.env);
};
