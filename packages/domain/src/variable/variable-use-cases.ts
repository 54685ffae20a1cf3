import { Effect } from "effect";
import { ConfigurationFault, ResourceExhausted } from "../errors/domain-errors.js";
import { newId } from "../ids/id.js";
import { SecretCipher } from "../secrets/secret-cipher.js";
import type { VariableRow } from "../storage/rows.js";
import type { StorageTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { Quotas } from "../tenancy/quotas.js";
import { alreadyExists, checkIfMatch, lockQuota, now, owned, read, transact } from "../use-case/use-case-kit.js";
import { decodeEnvelope, decodePathId } from "../validation/decode-write.js";
import { toVariableRecord } from "./variable-record.js";
import { VARIABLE_OUTPUT_FIELDS, VariableCreate, VariablePatch, type VariableType } from "./variable-schema.js";

/** The value as stored: SECRET values are encrypted. */
const storedValue = (type: VariableType, value: string) =>
  type === "SECRET" ? Effect.flatMap(SecretCipher, (cipher) => cipher.encrypt(value)) : Effect.succeed(value);

const ownedVariable = (tx: StorageTx, actor: Actor, id: string) =>
  Effect.flatMap(tx.findVariable(id), (row) => owned(row, actor, "variable", id));

/**
 * A variable's revision, for its ETag and If-Match: its update time in epoch milliseconds (variables carry
 * no version field; updates move it forward by at least 1 ms, so every update makes a new tag).
 */
export const variableRevision = (updatedAt: Date | string): number => new Date(updatedAt).getTime();

/** Creates a variable of the actor's tenant. */
export const createVariable = (actor: Actor, body: unknown) =>
  Effect.gen(function* () {
    const input = yield* decodeEnvelope("variable", VariableCreate, VARIABLE_OUTPUT_FIELDS, body);
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
        const row: VariableRow = { id: newId(), tenant: actor.tenant, createdAt: at, updatedAt: at, ...input, value };
        yield* tx.insertVariable(row).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(alreadyExists(e))));
        return toVariableRecord(row);
      }),
    );
  });

/** Every variable of the actor's tenant (SECRET values masked). */
export const listVariables = (actor: Actor) =>
  read((tx) => Effect.map(tx.listVariables(actor.tenant), (rows) => rows.map(toVariableRecord)));

/** One variable of the actor's tenant. */
export const getVariable = (actor: Actor, id: string) =>
  Effect.gen(function* () {
    yield* decodePathId("id", id);
    return toVariableRecord(yield* read((tx) => ownedVariable(tx, actor, id)));
  });

/** Replaces the value of a variable of the actor's tenant; `ifMatch` (a revision) makes it conditional. */
export const updateVariable = (actor: Actor, id: string, body: unknown, ifMatch?: number) =>
  Effect.gen(function* () {
    yield* decodePathId("id", id);
    const patch = yield* decodeEnvelope("variable", VariablePatch, VARIABLE_OUTPUT_FIELDS, body);
    return yield* transact((tx) =>
      Effect.gen(function* () {
        const stored = yield* ownedVariable(tx, actor, id);
        yield* checkIfMatch("variable", variableRevision(stored.updatedAt), ifMatch);
        const at = yield* now;
        const row: VariableRow = {
          ...stored,
          value: yield* storedValue(stored.type, patch.value),
          updatedAt: new Date(Math.max(at.getTime(), stored.updatedAt.getTime() + 1)),
        };
        yield* tx.updateVariable(row);
        return toVariableRecord(row);
      }),
    );
  });

/** Deletes a variable of the actor's tenant; `ifMatch` (a revision) makes it conditional. */
export const deleteVariable = (actor: Actor, id: string, ifMatch?: number) =>
  Effect.gen(function* () {
    yield* decodePathId("id", id);
    yield* transact((tx) =>
      Effect.gen(function* () {
        const stored = yield* ownedVariable(tx, actor, id);
        yield* checkIfMatch("variable", variableRevision(stored.updatedAt), ifMatch);
        yield* tx.deleteVariable(id);
      }),
    );
  });

/**
 * Plain values of the named variables of a tenant (SECRETs decrypted), for resolving `${NAME}`. A SECRET under
 * an encryption key the service was not given fails with ConfigurationFault (a lost or unlisted old key).
 */
export const resolveVariables = (tenant: string, names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const cipher = yield* SecretCipher;
    const rows = yield* read((tx) => tx.findVariablesByName(tenant, names));
    const values = new Map<string, string>();
    for (const row of rows) {
      if (row.type !== "SECRET") {
        values.set(row.name, row.value);
        continue;
      }
      if (!cipher.knowsKeyOf(row.value))
        return yield* new ConfigurationFault({
          detail: `the SECRET variable '${row.name}' is encrypted under a key this service was not given (was the key replaced without keeping the old one as a previous key?)`,
        });
      values.set(row.name, yield* cipher.decrypt(row.value));
    }
    return values;
  });
