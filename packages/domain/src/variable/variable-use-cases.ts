import { Effect } from "effect";
import { ResourceExhausted } from "../errors/domain-errors.js";
import { newId } from "../ids/id.js";
import { SecretCipher } from "../secrets/secret-cipher.js";
import type { VariableRow } from "../storage/rows.js";
import type { ReadTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { Quotas } from "../tenancy/quotas.js";
import { alreadyExists, checkIfMatch, lockQuota, now, owned, read, transact } from "../use-case/use-case-kit.js";
import { defineUseCase, type NoInput } from "../use-case/define-use-case.js";
import { invalid } from "../validation/decode-write.js";
import { validateIds, validateInput } from "../validation/validate-input.js";
import { toVariableRecord } from "./variable-record.js";
import { VariableCreate, VariablePatch, type VariableType } from "./variable-schema.js";

/** docs/api-rules.md §23: only a SECRET variable may hold a value per caller. */
const checkPerCaller = (type: VariableType, perCaller: boolean) =>
  perCaller && type !== "SECRET"
    ? Effect.fail(invalid([{ path: "variable.perCaller", message: "only a SECRET variable can be per caller" }]))
    : Effect.void;

/** The value as stored: SECRET values are encrypted. */
const storedValue = (type: VariableType, value: string) =>
  type === "SECRET" ? Effect.flatMap(SecretCipher, (cipher) => cipher.encrypt(value)) : Effect.succeed(value);

const ownedVariable = (tx: ReadTx, actor: Actor, id: string) =>
  Effect.flatMap(tx.findVariable(id), (row) => owned(row, actor, "variable", id));

/** Input of `createVariable`. */
export interface CreateVariableInput {
  readonly variable: VariableCreate;
}

/** Input of `getVariable`. */
export interface VariableRef {
  readonly variableId: string;
}

/**
 * Input of `updateVariable`: the new value. `expectedVersion` (a `variableRevision`) makes the write
 * conditional (412 when it differs).
 */
export interface UpdateVariableInput extends VariableRef {
  readonly variable: VariablePatch;
  readonly expectedVersion?: number | undefined;
}

/** Input of `deleteVariable`; `expectedVersion` (a `variableRevision`) makes the delete conditional (412). */
export interface DeleteVariableInput extends VariableRef {
  readonly expectedVersion?: number | undefined;
}

/**
 * A variable's revision, for its ETag and If-Match: its update time in epoch milliseconds (variables carry
 * no version field; updates move it forward by at least 1 ms, so every update makes a new tag).
 */
export const variableRevision = (updatedAt: Date | string): number => new Date(updatedAt).getTime();

/** Creates a variable of the actor's tenant (a SECRET value is stored encrypted). */
export const createVariable = defineUseCase("createVariable", (actor: Actor, { variable }: CreateVariableInput) =>
  Effect.gen(function* () {
    const input = yield* validateInput("variable", VariableCreate, variable);
    const perCaller = input.perCaller ?? false;
    yield* checkPerCaller(input.type, perCaller);
    const quotas = yield* Quotas;
    const value = yield* storedValue(input.type, input.value);
    return yield* transact((tx) =>
      Effect.gen(function* () {
        yield* lockQuota(tx, "variables", actor.tenant);
        if ((yield* tx.countVariables(actor.tenant)) >= quotas.variablesPerTenant)
          return yield* new ResourceExhausted({
            detail: `the tenant already has ${quotas.variablesPerTenant} variables`,
          });
        const at = yield* now;
        const row: VariableRow = {
          id: newId(),
          tenant: actor.tenant,
          createdAt: at,
          updatedAt: at,
          type: input.type,
          name: input.name,
          value,
          perCaller,
        };
        yield* tx.insertVariable(row).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(alreadyExists(e))));
        return toVariableRecord(row);
      }),
    );
  }),
);

/** Every variable of the actor's tenant (SECRET values masked). */
export const listVariables = defineUseCase("listVariables", (actor: Actor, _input: NoInput) =>
  read((tx) => Effect.map(tx.listVariables(actor.tenant), (rows) => rows.map(toVariableRecord))),
);

/** One variable of the actor's tenant (a SECRET value masked). */
export const getVariable = defineUseCase("getVariable", (actor: Actor, { variableId: id }: VariableRef) =>
  Effect.gen(function* () {
    yield* validateIds([["id", id]]);
    return toVariableRecord(yield* read((tx) => ownedVariable(tx, actor, id)));
  }),
);

/** Replaces the value of a variable of the actor's tenant. */
export const updateVariable = defineUseCase(
  "updateVariable",
  (actor: Actor, { variableId: id, variable, expectedVersion }: UpdateVariableInput) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      const patch = yield* validateInput("variable", VariablePatch, variable);
      return yield* transact((tx) =>
        Effect.gen(function* () {
          const stored = yield* ownedVariable(tx, actor, id);
          yield* checkIfMatch("variable", variableRevision(stored.updatedAt), expectedVersion);
          const perCaller = patch.perCaller ?? stored.perCaller;
          yield* checkPerCaller(stored.type, perCaller);
          const at = yield* now;
          const row: VariableRow = {
            ...stored,
            perCaller,
            value: patch.value === undefined ? stored.value : yield* storedValue(stored.type, patch.value),
            updatedAt: new Date(Math.max(at.getTime(), stored.updatedAt.getTime() + 1)),
          };
          yield* tx.updateVariable(row);
          return toVariableRecord(row);
        }),
      );
    }),
);

/** Deletes a variable of the actor's tenant. */
export const deleteVariable = defineUseCase(
  "deleteVariable",
  (actor: Actor, { variableId: id, expectedVersion }: DeleteVariableInput) =>
    Effect.gen(function* () {
      yield* validateIds([["id", id]]);
      yield* transact((tx) =>
        Effect.gen(function* () {
          const stored = yield* ownedVariable(tx, actor, id);
          yield* checkIfMatch("variable", variableRevision(stored.updatedAt), expectedVersion);
          yield* tx.deleteVariable(id);
        }),
      );
    }),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const VARIABLE_USE_CASES = {
  createVariable,
  listVariables,
  getVariable,
  updateVariable,
  deleteVariable,
} as const;
