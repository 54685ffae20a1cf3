import type { RecordKind } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { deleteBreach } from "./breaches.js";
import type { TxContext } from "./runner.js";

/** Deletes a row that servers may still reference; a reference held by the database fails it. */
export const deleteHeld = (
  ctx: TxContext,
  table: "providers" | "tools" | "prompts" | "resources",
  kind: RecordKind,
  id: string,
) =>
  ctx.runner.guarded(
    ctx.runner
      .rows(`delete from ${table} where id = $1`, [id])
      .pipe(Effect.asVoid, Effect.catchTag("ConstraintBreach", deleteBreach(kind, id))),
  );
