// The PostgreSQL backend's CPU per statement: planning and execution apart, read from /proc, so a loaded
// shared machine moves it far less than wall-clock timings (EXPLAIN ANALYZE's times are wall clock).
//
//   node bench/statement-cpu.mjs <database url> <file.sql> [runs=300]
//
// The file holds statements with literal values (no $n), each after a line `-- <label>`. For each statement
// it runs, on one connection: `explain <statement>` (planning only), the statement as a simple query
// (planned and run each time) and as a prepared statement (planned once, run each time), `runs` times each
// after 20 unmeasured runs, and prints the backend's CPU µs per run of each. Every mode runs inside a
// transaction rolled back at its end; `{n}` in a statement is replaced by a number unique to the run (ids and
// names of rows it inserts), and such a statement is not prepared (its text differs from run to run).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpuMs } from "./lib/service-process.mjs";

const [url, file, runsArg = "300"] = process.argv.slice(2);
if (url === undefined || file === undefined)
  throw new Error("usage: statement-cpu.mjs <database url> <file.sql> [runs]");
const RUNS = Number(runsArg);
const pg = createRequire(import.meta.resolve("@mcpsm/storage-postgres"))("pg");

const statements = readFileSync(file, "utf8")
  .split(/^-- /m)
  .filter((part) => part.trim() !== "")
  .map((part) => {
    const [label, ...body] = part.split("\n");
    return { label: label.trim(), sql: body.join("\n").trim().replace(/;$/, "") };
  });

const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  const pid = (await client.query("select pg_backend_pid() as pid")).rows[0].pid;
  let serial = 0;
  const perRun = async (run) => {
    await client.query("begin");
    try {
      for (let i = 0; i < 20; i++) await run(i);
      const before = cpuMs(pid);
      for (let i = 0; i < RUNS; i++) await run(i);
      return ((cpuMs(pid) - before) * 1000) / RUNS;
    } finally {
      await client.query("rollback");
    }
  };
  console.log("| statement | plan only µs | simple query µs | prepared µs |");
  console.log("|---|---|---|---|");
  for (const [n, { label, sql }] of statements.entries()) {
    const unique = () => sql.replaceAll("{n}", String(++serial));
    const plan = await perRun(() => client.query(`explain ${unique()}`));
    const simple = await perRun(() => client.query(unique()));
    const prepared = sql.includes("{n}") ? undefined : await perRun(() => client.query({ name: `s${n}`, text: sql }));
    console.log(`| ${label} | ${plan.toFixed(0)} | ${simple.toFixed(0)} | ${prepared?.toFixed(0) ?? "-"} |`);
  }
} finally {
  await client.end();
}
