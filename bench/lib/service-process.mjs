// The built service as a child process (as it runs in production: `node apps/api/dist/main.js`), with its
// CPU time and RSS read from /proc, so a benchmark can report CPU milliseconds per request: a figure that a
// loaded, shared machine moves far less than wall-clock latency.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLK_TCK = 100; // USER_HZ on Linux

/** CPU milliseconds (user + system) used so far by `pid` and its threads; 0 once it is gone. */
export const cpuMs = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return 0;
  }
};

/** Resident set size of `pid` in MiB. */
export const rssMiB = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

/** Pids of `pid` and its descendants (an embedded database may run as child processes). */
export const processTree = (pid) => {
  const out = [pid];
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    for (const child of children) out.push(...processTree(Number(child)));
  } catch {}
  return out;
};

const LIMITS = {
  RATE_LIMIT_TENANT_POINTS: "1000000000",
  RATE_LIMIT_TENANT_BURST: "1000000000",
  RATE_LIMIT_ADDRESS_POINTS: "1000000000",
  RATE_LIMIT_ADDRESS_BURST: "1000000000",
  QUOTA_SERVERS_PER_TENANT: "10000000",
  QUOTA_PROVIDERS_PER_TENANT: "10000000",
  QUOTA_VARIABLES_PER_TENANT: "10000000",
  // Seeding pauses between requests can exceed the default 5 s; a reused socket the server just closed
  // would fail the client's next request.
  HTTP_KEEP_ALIVE_TIMEOUT_MS: "120000",
  // No Prometheus listener: its fixed default port may be taken on a shared machine.
  METRICS_PORT: "0",
};

/**
 * Starts the service on a free port with DATA_DIR `dataDir` (dev-auth) and `env` on top (DATABASE_URL and
 * ENCRYPTION_KEY for a server; nothing for the embedded store), logs at `info` to /dev/null as in production.
 * Resolves once /readyz answers, with the start-up time.
 */
export const startServiceProcess = async ({ dataDir, env = {}, nodeOptions = "" }) => {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const started = Date.now();
  // SERVICE_NODE_FLAGS: node flags on the service's command line (the launcher takes heap flags there as the
  // operator's), to compare heap settings.
  const flags = (process.env.SERVICE_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...flags, join(ROOT, "apps/api/dist/main.js")], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "info",
      NODE_OPTIONS: nodeOptions,
      ...LIMITS,
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (exited) throw new Error(`the service exited before it was ready:\n${stderr}`);
    if (Date.now() - started > 180_000) throw new Error(`the service was not ready after 180 s:\n${stderr}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {}
    await sleep(50);
  }
  return {
    url,
    pid: child.pid,
    startupMs: Date.now() - started,
    /** An admin access token of tenant `sub` (dev-auth), a day long. */
    token: (sub) =>
      execFileSync(process.execPath, [join(ROOT, "apps/api/dist/cli/token.js"), "--sub", sub, "--ttl", "86400"], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, NODE_OPTIONS: "", ...env },
        encoding: "utf8",
      }).trim(),
    stop: async () => {
      if (exited) return;
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([gone, sleep(15_000)]);
      if (!exited) child.kill("SIGKILL");
    },
  };
};

/** A fresh 32-byte key, base64 (ENCRYPTION_KEY). */
export const newEncryptionKey = () => randomBytes(32).toString("base64");

/** A minimal JSON client of the management API. */
export const apiClient = (baseUrl, token) => async (method, path, body) => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 400)}`);
  return text === "" ? undefined : JSON.parse(text);
};
