// What a tool call spends resolving its header variables (docs/api-rules.md §9, §23), measured in-process on
// the PostgreSQL adapter with its point-read cache, as the service runs it: µs per resolution of
//   plain       a SECRET variable (what every `${NAME}` header cost before per-caller values)
//   per-caller  the same variable marked per caller, with a default and no value of this caller's own
//               (the caller's values are looked up, then the default is sent)
//   own         the same, with a value of this caller's own
// plus the per-call checks of §20 that a call needing no approval runs (pinned arguments of a tool with none).
// The variants take turns in rounds (alternating order), so drift and garbage collection hit all alike; the
// median round is printed. End-to-end CPU per call (bench/hot-paths.mjs) varies by ±0.2 ms between runs on
// two cores, too much to see a 0.05 ms goal; this isolates the step that differs.
//
//   ./run build && TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/call-resolution.mjs [rounds=40] [calls=2000]
//
// To compare with another build (say a checkout whose resolution predates per-caller values), run this file
// from that checkout too: it measures the build it sits in.
import { randomBytes } from "node:crypto";
import { resolveVariables, withPinnedArguments } from "@mcpsm/domain/mcp";
import { Storage } from "@mcpsm/domain/storage";
import { aesGcmCipherLayer, SecretCipher } from "@mcpsm/domain/use-cases";
import { TENANT_A, variable } from "@mcpsm/storage-contract";
import { makePostgresStorage } from "@mcpsm/storage-postgres";
import { createServerDatabase } from "@mcpsm/storage-postgres/testing";
import { Effect, Layer, ManagedRuntime } from "effect";

const ROUNDS = Number(process.argv[2] ?? 40);
const CALLS = Number(process.argv[3] ?? 2000);
const serverUrl = process.env.TEST_DATABASE_URL;
if (serverUrl === undefined) throw new Error("set TEST_DATABASE_URL (a PostgreSQL server to create a database on)");

const database = await createServerDatabase(serverUrl);
const handle = await makePostgresStorage({ url: database.url, poolSize: 4, readCache: { listen: true } });
const key = randomBytes(32);
const runtime = ManagedRuntime.make(Layer.merge(Layer.succeed(Storage, handle.storage), aesGcmCipherLayer(key)));
const run = (effect) => runtime.runPromise(effect);
const caller = { kind: "server-token", tokenId: "tokn0000001", serverId: "serv0000001" };

try {
  await handle.migrate();
  const cipher = await run(SecretCipher);
  const secret = await run(cipher.encrypt("bench-secret"));
  const own = await run(cipher.encrypt("my-own-secret"));
  const rows = [
    variable(1, { type: "SECRET", name: "PLAIN_KEY", value: secret }),
    variable(2, { type: "SECRET", name: "SHARED_KEY", value: secret, perCaller: true }),
    variable(3, { type: "SECRET", name: "OWN_KEY", value: secret, perCaller: true }),
  ];
  await run(
    handle.storage.transaction((tx) =>
      Effect.forEach(rows, (row) => tx.insertVariable(row), { discard: true }).pipe(
        // A build without per-caller values has no such table operation: its `own` row is a default only.
        Effect.zipRight(
          tx.putCallerValue === undefined
            ? Effect.void
            : tx.putCallerValue({
                id: "cval0000001",
                tenant: TENANT_A,
                variableId: rows[2].id,
                principal: `server-token:${caller.tokenId}`,
                serverTokenId: null,
                valueCipher: own,
                createdAt: new Date(),
                updatedAt: new Date(),
              }),
        ),
      ),
    ),
  );
  // The cache serves reads once the listener hears its own pings (as the service does after start-up).
  const deadline = Date.now() + 30_000;
  while (!handle.readCache.serving && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));

  const resolution = (name, expected) => async () => {
    for (let i = 0; i < CALLS; i++) {
      const { values } = await run(resolveVariables(TENANT_A, [name], caller));
      if (values.get(name) !== expected) throw new Error(`${name} resolved to ${values.get(name)}`);
    }
  };
  const noPins = {};
  const args = { pathArgs: { org: "acme" }, queryArgs: { page: 2 } };
  const variants = {
    plain: resolution("PLAIN_KEY", "bench-secret"),
    "per-caller": resolution("SHARED_KEY", "bench-secret"),
    own: resolution("OWN_KEY", "my-own-secret"),
    "approval checks": async () => {
      let kept = 0;
      for (let i = 0; i < CALLS; i++) if (withPinnedArguments(noPins, args) === args) kept++;
      if (kept !== CALLS) throw new Error("pinned nothing, yet the arguments were copied");
    },
  };
  const names = Object.keys(variants);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (const name of names) await variants[name](); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const started = performance.now();
      await variants[name]();
      times[name].push(((performance.now() - started) * 1000) / CALLS);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const result = Object.fromEntries(names.map((name) => [name, Number(median(times[name]).toFixed(3))]));
  for (const name of names)
    console.log(`${name.padEnd(16)} ${result[name].toFixed(3)} µs per call (median of ${ROUNDS} rounds of ${CALLS})`);
  console.log(JSON.stringify({ usPerCall: result, statementsFree: handle.readCache.size > 0 }));
} finally {
  await runtime.dispose();
  await handle.close();
  await database.dispose();
}
