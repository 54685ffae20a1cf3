import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS, makePostgresStorage, migrate, type PostgresStorage } from "../src/index.js";
import { createServerDatabase, serverUrl, targets, type TestDatabase } from "./support/targets.js";

// The committed migrations and the MikroORM mapping describe the same schema: after migrating a new
// database, the schema generator finds nothing to change (no missing or extra table, column, type,
// collation, index, unique or foreign key, cascade rule or trigger).
for (const target of targets)
  describe(`schema (${target.name})`, () => {
    let database: TestDatabase;
    let handle: PostgresStorage;

    beforeAll(async () => {
      database = await target.create();
    });
    afterAll(async () => {
      await handle?.close();
      await database?.dispose();
    });

    it("migrating a new database applies every committed migration, once", async () => {
      // The standalone entry point first (it opens and closes its own connection: the embedded server
      // takes one client at a time), then the storage's own, which finds nothing left to do.
      expect(await migrate(database.options)).toEqual(MIGRATIONS.map((m) => m.name));
      handle = await makePostgresStorage(database.options);
      expect(await handle.pendingMigrations()).toEqual([]);
      expect(await handle.migrate()).toEqual([]);
    });

    it("the migrated schema is exactly the mapping: the schema diff is empty", async () => {
      const diff = await handle.orm.schema.getUpdateSchemaSQL({ wrap: false });
      expect(diff.trim()).toBe("");
    });

    it("the mapping declares the constraints the adapter relies on", async () => {
      const constraints = await handle.orm.em.getConnection().execute<Array<{ name: string; type: string }>>(
        `select conname as name, contype as type from pg_constraint c
           join pg_namespace n on n.oid = c.connamespace
         where n.nspname = current_schema() and contype in ('u', 'f') order by conname`,
      );
      const byType = (type: string) => constraints.filter((c) => c.type === type).map((c) => c.name);
      expect(byType("u")).toEqual([
        "caller_values_variable_principal_unique",
        "git_connections_tenant_name_unique",
        "prompts_provider_id_name_unique",
        "providers_tenant_name_unique",
        "resources_provider_id_name_unique",
        "server_revisions_server_id_version_unique",
        "server_tokens_value_hash_unique",
        "servers_tenant_name_unique",
        "tools_provider_id_name_unique",
        "upstream_connections_provider_tenant_principal_unique",
        "variables_tenant_name_unique",
      ]);
      expect(byType("f")).toEqual([
        "caller_value_forms_server_token_id_foreign",
        "caller_value_forms_variable_id_foreign",
        "caller_values_server_token_id_foreign",
        "caller_values_variable_id_foreign",
        "git_syncs_server_id_foreign",
        "prompts_provider_id_foreign",
        "resources_provider_id_foreign",
        "server_prompts_prompt_id_foreign",
        "server_prompts_server_id_foreign",
        "server_providers_provider_id_foreign",
        "server_providers_server_id_foreign",
        "server_resources_resource_id_foreign",
        "server_resources_server_id_foreign",
        "server_revisions_server_id_foreign",
        "server_tokens_server_id_foreign",
        "server_tools_link_foreign",
        "server_tools_tool_id_foreign",
        "servers_git_connection_id_foreign",
        "tool_approvals_server_id_foreign",
        "tools_provider_id_foreign",
        "upstream_authorizations_provider_id_foreign",
        "upstream_authorizations_server_token_id_foreign",
        "upstream_connections_provider_id_foreign",
        "upstream_connections_server_token_id_foreign",
      ]);
    });
  });

describe.runIf(serverUrl !== undefined)("concurrent migrations (postgresql server)", () => {
  it("instances migrating a new database at once take turns: one applies, the others find nothing to do", async () => {
    const database = await createServerDatabase();
    try {
      const runs = await Promise.all(Array.from({ length: 4 }, () => migrate(database.options)));
      expect(runs.filter((names) => names.length > 0)).toEqual([MIGRATIONS.map((m) => m.name)]);
      const handle = await makePostgresStorage(database.options);
      try {
        expect(await handle.pendingMigrations()).toEqual([]);
        expect((await handle.orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).toBe("");
      } finally {
        await handle.close();
      }
    } finally {
      await database.dispose();
    }
  });
});
