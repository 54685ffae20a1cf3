import type { MigrationObject } from "@mikro-orm/core";
import { Migration20261121133457_initial } from "./Migration20261121133457_initial.js";
import { Migration20261124010000_tool_imported } from "./Migration20261124010000_tool_imported.js";

/**
 * The committed migrations, oldest first. They are classes compiled into dist, so the package migrates a
 * database without reading migration files from disk. A new migration is generated from the changed
 * mapping against a database migrated to the previous one (`orm.migrator.create()`), then added here.
 */
export const MIGRATIONS: ReadonlyArray<MigrationObject> = [
  { name: "Migration20261121133457_initial", class: Migration20261121133457_initial },
  { name: "Migration20261124010000_tool_imported", class: Migration20261124010000_tool_imported },
];
