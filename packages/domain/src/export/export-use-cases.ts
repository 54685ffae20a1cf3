import { Effect } from "effect";
import { ownedServerGraph } from "../server/server-use-cases.js";
import type { Actor } from "../tenancy/actor.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { read } from "../use-case/use-case-kit.js";
import { validateIds } from "../validation/validate-input.js";
import { exportDocumentOf } from "./export-document.js";

/** Input of `exportServer`. */
export interface ExportServerInput {
  readonly serverId: string;
}

/** The export document of a server of the actor's tenant (docs/api-rules.md §16): no id, no secret. */
export const exportServer = defineUseCase("exportServer", (actor: Actor, { serverId: id }: ExportServerInput) =>
  Effect.gen(function* () {
    yield* validateIds([["id", id]]);
    return yield* read((tx) => Effect.flatMap(ownedServerGraph(tx, actor, id), (graph) => exportDocumentOf(tx, graph)));
  }),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const EXPORT_USE_CASES = { exportServer } as const;
