import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mintDevToken } from "../src/auth/dev-auth.js";
import { clientFor } from "./support/harness.js";
import { createPrompt, createProvider, createResource, createTool, uniq } from "./support/records.js";
import { type ServiceProcess, startServiceProcess } from "./support/service-process.js";
import {
  CYCLES,
  FIXTURE,
  targets,
  type Fixture,
  type History,
  writeUntilKilled,
  checkThroughApi,
  orphansAndTotals,
} from "./support/durability-workload.js";

// A process killed (SIGKILL) in the middle of writes leaves no partial record: after a restart on the same
// data every record is either fully there or absent, and every write that was acknowledged is there.
//
// The real service (dist/main.js) takes a loop of multi-table writes from several concurrent clients:
// server creates linking several providers with chosen tools, prompts and resources (servers +
// server_providers + server_tools + server_prompts + server_resources), PATCHes replacing a server's whole
// link set and description, token creates, and tool creates (tools + their provider's version). It is
// killed from inside the response handler of the KILL_AFTER-th acknowledged write of the cycle, while the
// other clients' requests are in flight; then restarted on the same data and read back through the API.
// That happens CYCLES times on one database; at the end the tables are read directly as well.
//
// Targets: the embedded PGlite under DATA_DIR (the default: this also proves PGlite's files survive a
// SIGKILL), and a throwaway database on the TEST_DATABASE_URL server when that is set.

for (const target of targets)
  describe(`SIGKILL during writes (${target.name})`, () => {
    let dataDir: string | undefined;
    let dispose: (() => Promise<void>) | undefined;
    const processes: Array<ServiceProcess> = [];

    afterAll(async () => {
      for (const service of processes) await service.stop();
      await dispose?.();
      if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    });

    it(`after each of ${CYCLES} kills and restarts every record is complete or absent, and every acknowledged write is there`, async () => {
      dataDir = await mkdtemp(join(tmpdir(), "mcpsm-durability-"));
      const opened = await target.open();
      dispose = opened.dispose;
      const env = { ...opened.env, DATA_DIR: dataDir };
      let service = startServiceProcess(env);
      processes.push(service);
      const token = await mintDevToken(dataDir, { subject: `durability-${uniq()}` });
      let api = clientFor(await service.listening(60_000), token);

      // The records the servers link, acknowledged before any kill.
      const fixture: Array<Fixture> = [];
      for (let p = 0; p < FIXTURE.providers; p++) {
        const provider = await createProvider(api);
        const tools = [];
        for (let t = 0; t < FIXTURE.tools; t++) tools.push(await createTool(api, provider.id));
        const prompts = [];
        for (let t = 0; t < FIXTURE.prompts; t++) prompts.push(await createPrompt(api, provider.id));
        const resources = [];
        for (let t = 0; t < FIXTURE.resources; t++) resources.push(await createResource(api, provider.id));
        fixture.push({ provider, tools, prompts, resources });
      }

      const history: History = { servers: [], providers: [] };
      const report: Array<string> = [];
      let checked = { servers: 0, ackedServers: 0, links: 0, tools: 0, ackedTokens: 0, unacknowledged: 0 };
      for (let cycle = 1; cycle <= CYCLES; cycle++) {
        const { acknowledged, inFlightAtKill } = await writeUntilKilled(service, api, fixture, history, cycle);
        // The kill came while other clients' writes were under way.
        expect(inFlightAtKill).toBeGreaterThan(0);
        service = startServiceProcess(env);
        processes.push(service);
        api = clientFor(await service.listening(60_000), token);
        checked = await checkThroughApi(api, fixture, history);
        report.push(`kill ${cycle}: ${acknowledged} writes acknowledged, ${inFlightAtKill} in flight`);
      }

      // The tables themselves (the embedded database opens only once the service has let go of it).
      const stopped = await service.stop();
      expect(stopped, service.stderr()).toEqual({ code: 0, signal: null });
      const { orphans, totals } = await target.sql(env, dataDir, orphansAndTotals);
      for (const row of orphans) expect(row, `orphan rows in ${row.t}`).toMatchObject({ n: 0 });
      expect(totals).toMatchObject({ servers: checked.servers, links: checked.links });

      console.info(
        `durability (${target.name}): ${report.join("; ")}; afterwards ${checked.servers} servers ` +
          `(${checked.ackedServers} acknowledged) with ${checked.links} links, ${totals.tokens} tokens ` +
          `(${checked.ackedTokens} acknowledged), ${checked.tools} tools on the clients' providers checked; ` +
          `${checked.unacknowledged} writes committed without their answer arriving`,
      );
    }, 240_000);
  });
