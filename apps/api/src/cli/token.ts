import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ALL_SCOPES } from "@mcpsm/domain";
import { devSigningKey, mintDevToken } from "../auth/dev-auth.js";

// Prints a dev-auth access token signed by the key in DATA_DIR (the running service in dev-auth mode accepts it).
// Before printing, it asks the service on HOST:PORT (or --url) for its key set: a service started with another
// DATA_DIR signs with another key and would refuse the token, which is said plainly instead.
const usage = `usage: ./run token [TENANT] [--sub TENANT] [--scope SCOPE]... [--ttl SECONDS] [--url URL]
  TENANT   the tenant (token subject), default "dev"; --sub says the same
  --scope  a scope to grant; repeat or space-separate; default every scope
  --ttl    lifetime in seconds, default 3600
  --url    the running service to check the key against, default http://HOST:PORT (127.0.0.1:8080)
Scopes: ${ALL_SCOPES.join(" ")}`;

const fail = (message: string): never => {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
};

const parsed = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        sub: { type: "string" },
        scope: { type: "string", multiple: true },
        ttl: { type: "string", default: "3600" },
        url: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
})();
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
if (positionals.length > 1) fail(`one tenant at most (got ${positionals.join(", ")})`);
const positional = positionals[0];
if (positional !== undefined && values.sub !== undefined && positional !== values.sub)
  fail(`the tenant is given twice, differently: ${positional} and --sub ${values.sub}`);
const subject = positional ?? values.sub ?? "dev";
const ttl = Number(values.ttl);
if (!Number.isInteger(ttl) || ttl < 1) fail("--ttl must be a whole number of seconds");
const scopes = values.scope?.flatMap((s) => s.split(" ")).filter((s) => s !== "");
const dataDir = resolve(process.env.DATA_DIR ?? "./.data");

/** Whether the running service (if any) accepts tokens of this data directory's key; a message when not. */
const keyMismatch = async (): Promise<string | undefined> => {
  const host = process.env.HOST ?? "127.0.0.1";
  const url = (values.url ?? `http://${host.includes(":") ? `[${host}]` : host}:${process.env.PORT ?? "8080"}`).replace(
    /\/+$/,
    "",
  );
  let answer: Response;
  try {
    answer = await fetch(`${url}/.well-known/jwks.json`, { signal: AbortSignal.timeout(1_500) });
  } catch {
    return undefined; // No service there: nothing to compare with.
  }
  if (answer.status === 404)
    return `the service at ${url} is not in dev-auth mode (AUTH_MODE): it does not accept these tokens`;
  if (!answer.ok) return undefined;
  const { keys } = (await answer.json().catch(() => ({ keys: [] }))) as { keys?: Array<{ kid?: string }> };
  const { publicJwk } = await devSigningKey(dataDir);
  if ((keys ?? []).some((key) => key.kid === publicJwk.kid)) return undefined;
  return `the service at ${url} runs with another DATA_DIR than ${dataDir}: it would refuse this token.
Run this command with the service's DATA_DIR (DATA_DIR=... ./run token ${subject}).`;
};

const mismatch = await keyMismatch();
if (mismatch !== undefined) {
  process.stderr.write(`${mismatch}\n`);
  process.exit(1);
}
process.stdout.write(`${await mintDevToken(dataDir, { subject, ...(scopes ? { scopes } : {}), ttlSeconds: ttl })}\n`);
