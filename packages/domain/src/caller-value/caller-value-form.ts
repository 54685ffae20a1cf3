import { createHash } from "node:crypto";
import { Effect } from "effect";
import { AuditContext } from "../audit/audit-context.js";
import { newId, randomAlphanumeric } from "../ids/id.js";
import type { McpCaller } from "../mcp/server-access.js";
import { SecretCipher } from "../secrets/secret-cipher.js";
import type { VariableRow } from "../storage/rows.js";
import { connectionAuditContext, connectionOwner } from "../upstream-connection/connection-use-cases.js";
import { now, read, transact } from "../use-case/use-case-kit.js";
import type { CallerValueFormRow, CallerValueRow } from "./caller-value-rows.js";

// The form that collects a caller's own value (docs/api-rules.md §23): begun by the MCP endpoint when a call
// needs a value the caller lacks, shown at `GET /credentials/{id}`, filled in once. The id is the capability:
// 43 random letters and digits (≈ 256 bits), only in the URL; the store keeps its SHA-256, so a reader of the
// database cannot fill a form in. A form lives 10 minutes and is taken (deleted) by the one submission that
// stores a value.

/** How long a form stays usable. */
export const CALLER_VALUE_FORM_TTL_SECONDS = 600;

/** How many expired forms a new one deletes (bounded, so beginning a form stays cheap). */
const FORM_PRUNE_BATCH = 100;

/** The audit operation of a value stored by a form: no management route, the form (docs/api-rules.md §18). */
export const CALLER_VALUE_SET_OPERATION = "setCallerValue" as const;

/** The form ids the service hands out: 43 letters and digits. */
export const isCallerValueFormId = (id: string): boolean => /^[A-Za-z0-9]{43}$/.test(id);

const formKey = (id: string) => createHash("sha256").update(id, "utf8").digest("base64url");

/** What a form shows: the variable's name and the provider that asked. */
export interface CallerValueForm {
  readonly variableName: string;
  readonly providerName: string;
  readonly expiresAt: Date;
}

/**
 * Records a form for `caller` to enter its value of `variable` and answers its id (the capability the URL
 * carries). ReferenceViolation when the variable or the caller's server token was deleted meanwhile.
 */
export const beginCallerValueForm = (input: {
  readonly variable: VariableRow;
  readonly caller: McpCaller;
  readonly providerName: string;
}) =>
  Effect.gen(function* () {
    const at = yield* now;
    const id = randomAlphanumeric(43);
    const owner = connectionOwner(input.caller);
    const row: CallerValueFormRow = {
      id: formKey(id),
      tenant: input.variable.tenant,
      variableId: input.variable.id,
      principal: owner.principal,
      serverTokenId: owner.serverTokenId,
      providerName: input.providerName,
      expiresAt: new Date(at.getTime() + CALLER_VALUE_FORM_TTL_SECONDS * 1000),
      createdAt: at,
    };
    yield* transact((tx) =>
      Effect.zipRight(tx.pruneCallerValueForms(at, FORM_PRUNE_BATCH), tx.insertCallerValueForm(row)),
    );
    return id;
  });

/** The form `id` names while it is usable (not taken, not expired); undefined otherwise. Takes nothing. */
export const findCallerValueForm = (id: string) =>
  Effect.gen(function* () {
    if (!isCallerValueFormId(id)) return undefined;
    const at = yield* now;
    return yield* read((tx) =>
      Effect.flatMap(tx.findCallerValueForm(formKey(id)), (form) =>
        form === undefined || form.expiresAt.getTime() <= at.getTime()
          ? Effect.succeed(undefined)
          : Effect.map(tx.findVariable(form.variableId), (variable): CallerValueForm | undefined =>
              variable === undefined
                ? undefined
                : { variableName: variable.name, providerName: form.providerName, expiresAt: form.expiresAt },
            ),
      ),
    );
  });

/**
 * Stores `value` as the form's caller's own value of its variable, encrypted, taking the form (single use),
 * with the audit event of the change in the same transaction. Answers the variable's name, or undefined
 * when the form is unknown, used already or expired, or its variable or server token is gone: then nothing
 * is stored.
 */
export const submitCallerValue = (id: string, value: string, requestId: string) =>
  Effect.gen(function* () {
    if (!isCallerValueFormId(id)) return undefined;
    const key = formKey(id);
    const at = yield* now;
    // Read first to name the audit event's tenant and actor (the form's caller); the take below decides.
    const shown = yield* read((tx) => tx.findCallerValueForm(key));
    if (shown === undefined || shown.expiresAt.getTime() <= at.getTime()) return undefined;
    const cipher = yield* SecretCipher;
    const valueCipher = yield* cipher.encrypt(value);
    const stored = yield* transact((tx) =>
      Effect.gen(function* () {
        const form = yield* tx.takeCallerValueForm(key);
        if (form === undefined || form.principal !== shown.principal || form.tenant !== shown.tenant) return undefined;
        const variable = yield* tx.findVariable(form.variableId);
        if (variable === undefined || !variable.perCaller || variable.tenant !== form.tenant) return undefined;
        const row: CallerValueRow = {
          id: newId(),
          tenant: form.tenant,
          variableId: form.variableId,
          principal: form.principal,
          serverTokenId: form.serverTokenId,
          valueCipher,
          createdAt: at,
          updatedAt: at,
        };
        const put = yield* Effect.either(tx.putCallerValue(row));
        return put._tag === "Right" ? variable.name : undefined;
      }),
    ).pipe(
      Effect.provideService(AuditContext, {
        ...connectionAuditContext(shown.tenant, shown.principal, requestId),
        operation: CALLER_VALUE_SET_OPERATION,
      }),
    );
    // A form whose value could not be stored (its variable went) is spent all the same: the take committed.
    return stored;
  });
