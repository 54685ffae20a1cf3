import { Migration } from "@mikro-orm/migrations";

// Written by hand: MikroORM's schema diff sees json and jsonb as one type, so `migration:create` finds nothing
// to do when an entity moves between them (schema/server-revision-entity.ts says why these two are json).
export class Migration20261128211500_revision_documents_json extends Migration {
  override name = "Migration20261128211500_revision_documents_json";

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "server_revisions" alter column "document" type json using "document"::json, alter column "content" type json using "content"::json;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "server_revisions" alter column "document" type jsonb using "document"::jsonb, alter column "content" type jsonb using "content"::jsonb;`,
    );
  }
}
