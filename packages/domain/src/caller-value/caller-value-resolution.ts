import { Data, Effect } from "effect";
import { ConfigurationFault } from "../errors/domain-errors.js";
import type { McpCaller } from "../mcp/server-access.js";
import { SecretCipher } from "../secrets/secret-cipher.js";
import type { VariableRow } from "../storage/rows.js";
import { connectionOwner } from "../upstream-connection/connection-use-cases.js";
import { read } from "../use-case/use-case-kit.js";
import type { CallerValueRow } from "./caller-value-rows.js";

// `${NAME}` values at call time (docs/api-rules.md §9, §23): a plain variable's value; a per-caller one's the
// calling principal's own, else its default, else none — and then the caller is asked for it. One read serves
// both: the caller's values are looked up only when a referenced variable is per caller.

/** A referenced per-caller variable that the caller has no value for and that has no default. */
export class CallerValueNeeded extends Data.TaggedError("CallerValueNeeded")<{
  readonly variable: VariableRow;
}> {}

const decrypted = (cipher: typeof SecretCipher.Service, name: string, ciphertext: string) =>
  cipher.knowsKeyOf(ciphertext)
    ? cipher.decrypt(ciphertext)
    : Effect.fail(
        new ConfigurationFault({
          detail: `the SECRET variable '${name}' is encrypted under a key this service was not given (was the key replaced without keeping the old one as a previous key?)`,
        }),
      );

/**
 * Plain values of the named variables of a tenant for `caller` (SECRETs decrypted). A per-caller variable
 * gives the caller's own value, else its default; with neither it is left out and named in `needed`. A
 * SECRET under an encryption key the service was not given fails with ConfigurationFault.
 */
export const resolveVariables = (tenant: string, names: ReadonlyArray<string>, caller: McpCaller) =>
  Effect.gen(function* () {
    const cipher = yield* SecretCipher;
    const { rows, own } = yield* read((tx) =>
      Effect.flatMap(tx.findVariablesByName(tenant, names), (rows) => {
        const perCaller = rows.filter((row) => row.perCaller).map((row) => row.id);
        return perCaller.length === 0
          ? Effect.succeed({ rows, own: [] as ReadonlyArray<CallerValueRow> })
          : Effect.map(tx.findCallerValues(perCaller, connectionOwner(caller).principal), (own) => ({ rows, own }));
      }),
    );
    const values = new Map<string, string>();
    const needed: Array<VariableRow> = [];
    for (const row of rows) {
      if (row.type !== "SECRET") {
        values.set(row.name, row.value);
        continue;
      }
      const mine = row.perCaller ? own.find((value) => value.variableId === row.id) : undefined;
      const value = yield* decrypted(cipher, row.name, mine?.valueCipher ?? row.value);
      if (row.perCaller && mine === undefined && value === "") needed.push(row);
      else values.set(row.name, value);
    }
    return { values, needed } as const;
  });
