import { Routine } from "@mikro-orm/postgresql";

// The stored functions the adapter's statements call, described here like the tables in entities.ts (the
// migrations are generated from both; the schema test proves that migrating produces exactly these).

/**
 * Fails the statement that calls it, with `reason`: how a write expected to succeed (`Runner.expect`) fails
 * when it wrote nothing, so that the rest of its round trip (the audit event, COMMIT) does not run. Volatile
 * (the default), so a statement evaluates it only for a row that reaches it.
 */
export const RefuseExpectedWrite = new Routine({
  name: "refuse_expected_write",
  type: "function",
  language: "plpgsql",
  params: { reason: { type: "text", runtimeType: "string" } },
  returns: { runtimeType: "boolean", columnType: "boolean" },
  body: "begin raise exception using errcode = 'P0001', message = 'expected write refused: ' || reason; end;",
});

/** Every stored function of the schema. */
export const ROUTINES = [RefuseExpectedWrite];
