import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createInterface } from "node:readline";

// The real service (dist/main.js, built before the tests run) and its commands in child processes, for
// tests of what only a process shows: start-up, a kill, the database going away under it.

const dist = join(import.meta.dirname, "..", "..", "dist");
export const MAIN = join(dist, "main.js");
export const MIGRATE = join(dist, "cli", "migrate.js");

/** One JSON log line of the service (pino). */
export type LogEntry = Record<string, unknown> & { readonly msg?: string };

/** Settings the child must not inherit from the test runner's environment: each test sets its own. */
const OWN = ["DATABASE_URL", "DATABASE_POOL_SIZE", "DATABASE_MIGRATE_ON_START", "ENCRYPTION_KEY", "DATA_DIR"];

const childEnv = (env: Readonly<Record<string, string>>): NodeJS.ProcessEnv => {
  const base = { ...process.env };
  for (const name of OWN) delete base[name];
  // METRICS_PORT 0: a second listener on the fixed default port would collide between parallel test processes.
  return { ...base, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", METRICS_PORT: "0", ...env };
};

/** A fresh ENCRYPTION_KEY (32 random bytes, base64), required with DATABASE_URL. */
export const encryptionKey = (): string => randomBytes(32).toString("base64");

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** Every JSON line the process wrote to stdout so far, parsed. */
  readonly logs: ReadonlyArray<LogEntry>;
  /** Everything it wrote to stderr so far. */
  readonly stderr: () => string;
  /**
   * The first log entry (already written or still to come) that `match` accepts. Fails when the process
   * exits first, or after `timeoutMs`.
   */
  readonly waitForLog: (what: string, match: (entry: LogEntry) => boolean, timeoutMs?: number) => Promise<LogEntry>;
  /** The base URL, once the service logged "listening". */
  readonly listening: (timeoutMs?: number) => Promise<string>;
  /** How the process ended. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  /** SIGTERM (graceful), then waits for the exit, killing it if it does not end in time. */
  readonly stop: () => Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
}

/** Starts `node dist/main.js` with `env` on top of the runner's environment (PORT 0, loopback, LOG_LEVEL info). */
export const startServiceProcess = (env: Readonly<Record<string, string>>): ServiceProcess => {
  const child = spawn(process.execPath, [MAIN], { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  const logs: Array<LogEntry> = [];
  const waiters = new Set<() => void>();
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    try {
      logs.push(JSON.parse(line) as LogEntry);
    } catch {
      logs.push({ msg: line, unparsed: true });
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      resolve({ code, signal });
      for (const wake of waiters) wake();
    }),
  );
  const waitForLog = (what: string, match: (entry: LogEntry) => boolean, timeoutMs = 30_000) =>
    new Promise<LogEntry>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no log line "${what}" within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
      }, timeoutMs);
      const check = () => {
        const found = logs.find(match);
        if (found !== undefined || child.exitCode !== null || child.signalCode !== null) {
          clearTimeout(timer);
          waiters.delete(check);
          if (found !== undefined) resolve(found);
          else
            reject(
              new Error(
                `the service exited (${child.exitCode ?? child.signalCode}) before logging "${what}"; stderr: ${stderr.slice(-2000)}`,
              ),
            );
        }
      };
      waiters.add(check);
      check();
    });
  return {
    child,
    logs,
    stderr: () => stderr,
    waitForLog,
    listening: async (timeoutMs) =>
      String(
        (
          await waitForLog(
            "listening",
            (entry) => entry.msg === "listening" && typeof entry.url === "string",
            timeoutMs,
          )
        ).url,
      ),
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
        const result = await exited;
        clearTimeout(timer);
        return result;
      }
      return exited;
    },
  };
};

/** Runs a command of dist (`node <script>`) to its end; fails after `timeoutMs`. */
export const runCommand = (
  script: string,
  env: Readonly<Record<string, string>>,
  timeoutMs = 60_000,
): Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${script} did not finish within ${timeoutMs} ms; stdout: ${stdout}; stderr: ${stderr}`));
    }, timeoutMs);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
