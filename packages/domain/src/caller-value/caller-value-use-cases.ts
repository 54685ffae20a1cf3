import { Effect } from "effect";
import { NotFound } from "../errors/domain-errors.js";
import type { ReadTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { owned, read, transact } from "../use-case/use-case-kit.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { invalid } from "../validation/decode-write.js";
import { validateIds } from "../validation/validate-input.js";
import type { CallerValueRow } from "./caller-value-rows.js";
import { type CallerValueList, type CallerValueRecord, isPrincipal } from "./caller-value-schema.js";

// The management side of per-caller values (docs/api-rules.md §23): who holds one, and taking one away (the
// caller is asked again on its next call). Never a value.

/** Input of `listCallerValues`. */
export interface CallerValuesRef {
  readonly variableId: string;
}

/** Input of `deleteCallerValue`. */
export interface CallerValueRef extends CallerValuesRef {
  readonly principal: string;
}

const toRecord = (row: CallerValueRow): CallerValueRecord => ({
  principal: row.principal,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const ownedVariable = (tx: ReadTx, actor: Actor, id: string) =>
  Effect.flatMap(tx.findVariable(id), (row) => owned(row, actor, "variable", id));

/** The principals holding their own value of a variable of the actor's tenant (never a value). */
export const listCallerValues = defineUseCase("listCallerValues", (actor: Actor, { variableId }: CallerValuesRef) =>
  Effect.gen(function* () {
    yield* validateIds([["id", variableId]]);
    return yield* read((tx) =>
      Effect.gen(function* () {
        yield* ownedVariable(tx, actor, variableId);
        const rows = yield* tx.listCallerValues(variableId);
        return { callerValues: rows.map(toRecord) } satisfies CallerValueList;
      }),
    );
  }),
);

/** Deletes one caller's own value of a variable of the actor's tenant; it is asked again on its next call. */
export const deleteCallerValue = defineUseCase(
  "deleteCallerValue",
  (actor: Actor, { variableId, principal }: CallerValueRef) =>
    Effect.gen(function* () {
      yield* validateIds([["id", variableId]]);
      if (!isPrincipal(principal))
        return yield* invalid([
          { path: "principal", message: "must be oauth:<sub> or server-token:<token id> (11 letters or digits)" },
        ]);
      yield* transact((tx) =>
        Effect.gen(function* () {
          yield* ownedVariable(tx, actor, variableId);
          const [row] = yield* tx.findCallerValues([variableId], principal);
          if (row === undefined) return yield* new NotFound({ kind: "callerValue", id: principal });
          yield* tx.deleteCallerValue(row.id);
        }),
      );
    }),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const CALLER_VALUE_USE_CASES = { listCallerValues, deleteCallerValue } as const;
