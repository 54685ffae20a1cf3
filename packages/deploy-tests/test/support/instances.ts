import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

// The built service (apps/api/dist, built by turbo before this package's tests) in child processes, started
// the way a container starts it: configuration in the environment only.

const dist = join(import.meta.dirname, "..", "..", "..", "..", "apps", "api", "dist");
const MAIN = join(dist, "main.js");
export const MIGRATE = join(dist, "cli", "migrate.js");
export const TOKEN = join(dist, "cli", "token.js");

/** Settings a child must not inherit from the runner: the test gives its own. */
const OWN = ["DATABASE_URL", "DATABASE_MIGRATE_ON_START", "ENCRYPTION_KEY", "DATA_DIR", "REDIS_URL", "PORT"];

const childEnv = (env: Readonly<Record<string, string>>): NodeJS.ProcessEnv => {
  const base = { ...process.env };
  for (const name of OWN) delete base[name];
  return { ...base, PORT: "0", HOST: "127.0.0.1", METRICS_PORT: "0", LOG_LEVEL: "warn", ...env };
};

export interface Instance {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /** SIGTERM (graceful: in-flight requests finish), then the exit code. */
  readonly stop: () => Promise<number | null>;
  /** SIGKILL: the process dies at once, whatever it was doing. */
  readonly kill: () => Promise<number | null>;
}

const signal = (child: ChildProcess, name: NodeJS.Signals, exited: Promise<number | null>) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(name);
  return exited;
};

/** Starts one instance and resolves once it listens (it logs "listening" at level info, which is always on). */
export const startInstance = (env: Readonly<Record<string, string>>): Promise<Instance> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], {
      env: childEnv({ ...env, LOG_LEVEL: "info" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    const exited = new Promise<number | null>((done) =>
      child.once("exit", (code, signal) => {
        if (signal !== null && signal !== "SIGKILL") process.stderr.write(`instance ended by ${signal}: ${stderr}\n`);
        done(code);
      }),
    );
    void exited.then((code) => reject(new Error(`instance exited (${code}) before listening: ${stderr}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const entry = (() => {
        try {
          return JSON.parse(line) as { msg?: string; url?: string };
        } catch {
          return {};
        }
      })();
      if (entry.msg === "listening" && typeof entry.url === "string")
        resolve({
          url: entry.url.replace(/\/$/, ""),
          child,
          exited,
          stop: () => signal(child, "SIGTERM", exited),
          kill: () => signal(child, "SIGKILL", exited),
        });
    });
  });

/** Runs a command of dist to its end and returns what it printed; fails on a non-zero exit. */
export const runCli = (script: string, env: Readonly<Record<string, string>>): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${script} exited ${code}: ${stderr}`)),
    );
  });
