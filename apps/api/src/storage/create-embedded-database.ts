import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

// A new embedded database is created (initdb) and migrated in a child process, which then exits; the
// service opens the finished database as on any restart. Creating a schema runs far more of PostgreSQL than
// serving does, and the memory that work leaves behind stays with the process that did it: freed heap
// memory that the C allocator keeps (fragmented, it cannot return it) and code compiled for it. In a
// child process all of it goes back to the system when the child ends, so a first start idles at the RSS
// of a restart (docs/performance.md, "Embedded store").

/** The child's module next to this one: dist/…/embedded-database-child.js, or the TypeScript source under tests. */
const CHILD = fileURLToPath(
  new URL(
    import.meta.url.endsWith(".ts") ? "./embedded-database-child.ts" : "./embedded-database-child.js",
    import.meta.url,
  ),
);

/** The child's one message: the migrations it applied. */
const isReport = (message: unknown): message is { readonly applied: ReadonlyArray<string> } =>
  typeof message === "object" &&
  message !== null &&
  Array.isArray((message as { applied?: unknown }).applied) &&
  (message as { applied: Array<unknown> }).applied.every((name) => typeof name === "string");

/**
 * Creates the embedded database in `pgDataDir` (which must not hold one yet), applies every migration and
 * closes it, all in a child process; answers the names of the migrations applied.
 */
export const createEmbeddedDatabase = (pgDataDir: string): Promise<ReadonlyArray<string>> =>
  new Promise((resolve, reject) => {
    const child = fork(CHILD, [pgDataDir], { stdio: ["ignore", "ignore", "pipe", "ipc"] });
    let stderr = "";
    let applied: ReadonlyArray<string> | undefined;
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4_000);
    });
    child.on("message", (message: unknown) => {
      if (isReport(message)) applied = message.applied;
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (code === 0 && applied !== undefined) resolve(applied);
      else
        reject(
          new Error(
            `creating the embedded database failed (child exit ${code ?? signal}): ${stderr.trim() || "no output"}`,
          ),
        );
    });
  });
