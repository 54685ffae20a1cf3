import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ALL_SCOPES } from "@mcpsm/domain";
import { mintDevToken } from "../auth/dev-auth.js";

// Prints a dev-auth access token signed by the key in DATA_DIR (the running service in dev-auth mode accepts it).
const usage = `usage: pnpm token [--sub TENANT] [--scope SCOPE]... [--ttl SECONDS]
  --sub    the tenant (token subject), default "dev"
  --scope  a scope to grant; repeat or space-separate; default every scope
  --ttl    lifetime in seconds, default 3600
Scopes: ${ALL_SCOPES.join(" ")}`;

const { values } = parseArgs({
  options: {
    sub: { type: "string", default: "dev" },
    scope: { type: "string", multiple: true },
    ttl: { type: "string", default: "3600" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
const ttl = Number(values.ttl);
if (!Number.isInteger(ttl) || ttl < 1) {
  process.stderr.write(`--ttl must be a whole number of seconds\n${usage}\n`);
  process.exit(2);
}
const scopes = values.scope?.flatMap((s) => s.split(" ")).filter((s) => s !== "");
const dataDir = resolve(process.env.DATA_DIR ?? "./.data");
process.stdout.write(
  `${await mintDevToken(dataDir, { subject: values.sub, ...(scopes ? { scopes } : {}), ttlSeconds: ttl })}\n`,
);
