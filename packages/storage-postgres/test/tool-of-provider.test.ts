import { provider, server, TENANT_B, tool } from "@mcpsm/storage-contract";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStorage } from "../src/index.js";
import { migratedStorage, targets } from "./support/targets.js";

// The statement-level check of server_tools (schema/entities.ts, toolOfProviderTrigger): a tool is chosen
// only under its own provider, whatever statement writes the link, and a statement with one bad row among
// many writes none of them.

for (const target of targets)
  describe(`server_tools: a tool under its own provider only (${target.name})`, () => {
    let handle: PostgresStorage & { readonly dispose: () => Promise<void> };
    const p1 = provider(1);
    const p2 = provider(2, { tenant: TENANT_B, visibilityType: "PUBLIC" });
    const own = [tool(1, p1.id), tool(2, p1.id)];
    const foreign = tool(3, p2.id);
    const s = server(1, { providers: [{ providerId: p1.id, toolIds: [own[0]?.id ?? ""] }] });
    const execute = (sql: string, params: Array<unknown>) => handle.orm.em.getConnection().execute(sql, params);
    const links = () =>
      execute("select tool_id from server_tools where server_id = ? order by ordinal", [s.id]).then((rows) =>
        rows.map((row) => String(row.tool_id)),
      );

    beforeAll(async () => {
      handle = await migratedStorage(await target.create());
      await Effect.runPromise(
        handle.storage.transaction((tx) =>
          Effect.gen(function* () {
            for (const p of [p1, p2]) yield* tx.insertProvider(p);
            for (const t of [...own, foreign]) yield* tx.insertTool(t);
            yield* tx.insertServer(s);
          }),
        ),
      );
    });
    afterAll(() => handle?.dispose());

    it("an insert of many rows with one foreign tool among them fails and writes none", async () => {
      await expect(
        execute(
          "insert into server_tools (server_id, provider_id, tool_id, ordinal) values (?, ?, ?, 1), (?, ?, ?, 2)",
          [s.id, p1.id, own[1]?.id, s.id, p1.id, foreign.id],
        ),
      ).rejects.toMatchObject({ code: "23503", constraint: "server_tools_tool_of_provider" });
      expect(await links()).toEqual([own[0]?.id]);
    });

    it("an update that moves a link to a foreign tool fails", async () => {
      await expect(
        execute("update server_tools set tool_id = ? where server_id = ?", [foreign.id, s.id]),
      ).rejects.toMatchObject({ code: "23503", constraint: "server_tools_tool_of_provider" });
      expect(await links()).toEqual([own[0]?.id]);
    });

    it("rows of the provider's own tools are written", async () => {
      await execute("insert into server_tools (server_id, provider_id, tool_id, ordinal) values (?, ?, ?, 1)", [
        s.id,
        p1.id,
        own[1]?.id,
      ]);
      expect(await links()).toEqual([own[0]?.id, own[1]?.id]);
    });
  });
