import type { Unavailable } from "@mcpsm/domain/errors";
import type {
  PromptRow,
  ReadTx,
  ProviderRow,
  ResourceRow,
  ServerRow,
  ServerTokenRow,
  Storage,
  StorageTx,
  ToolRow,
  VariableRow,
} from "@mcpsm/domain/storage";
import { Effect } from "effect";

/** Rows to insert before a test, each list in the given order. */
export interface Seed {
  readonly providers?: ReadonlyArray<ProviderRow>;
  readonly tools?: ReadonlyArray<ToolRow>;
  readonly prompts?: ReadonlyArray<PromptRow>;
  readonly resources?: ReadonlyArray<ResourceRow>;
  readonly variables?: ReadonlyArray<VariableRow>;
  readonly servers?: ReadonlyArray<ServerRow>;
  readonly serverTokens?: ReadonlyArray<ServerTokenRow>;
}

/** What the cases use to drive the storage under test. */
export interface Harness {
  /** The storage of the current test. */
  readonly storage: () => typeof Storage.Service;
  /** Runs `work` in one transaction; rejects when it fails. */
  readonly run: <A, E>(work: (tx: StorageTx) => Effect.Effect<A, E>) => Promise<A>;
  /** Runs `work` with `read`; rejects when it fails. */
  readonly read: <A, E>(work: (tx: StorageTx) => Effect.Effect<A, E>) => Promise<A>;
  /** Runs `work` in one transaction that must fail, and resolves with the failure. */
  readonly failure: <A, E>(work: (tx: StorageTx) => Effect.Effect<A, E>) => Promise<E | Unavailable>;
  /** Inserts rows in one transaction, parents before children. */
  readonly seed: (rows: Seed) => Promise<void>;
}

/** Inserts `rows` with `tx`, parents before children. */
export const insertSeed = (tx: StorageTx, rows: Seed) =>
  Effect.gen(function* () {
    for (const row of rows.providers ?? []) yield* tx.insertProvider(row);
    for (const row of rows.tools ?? []) yield* tx.insertTool(row);
    for (const row of rows.prompts ?? []) yield* tx.insertPrompt(row);
    for (const row of rows.resources ?? []) yield* tx.insertResource(row);
    for (const row of rows.variables ?? []) yield* tx.insertVariable(row);
    for (const row of rows.servers ?? []) yield* tx.insertServer(row);
    for (const row of rows.serverTokens ?? []) yield* tx.insertServerToken(row);
  });

/** A harness over whatever storage `current` answers when a test runs. */
export const makeHarness = (current: () => typeof Storage.Service): Harness => {
  const run = <A, E>(work: (tx: StorageTx) => Effect.Effect<A, E>) => Effect.runPromise(current().transaction(work));
  return {
    storage: current,
    run,
    // The port types `read`'s work as read-only (`ReadTx`); the cases also check what a store hands it at run
    // time (every store gives its whole transaction object, and a write in it must still behave).
    read: <A, E>(work: (tx: StorageTx) => Effect.Effect<A, E>) =>
      Effect.runPromise(current().read(work as unknown as (tx: ReadTx) => Effect.Effect<A, E>)),
    failure: (work) => Effect.runPromise(Effect.flip(current().transaction(work))),
    seed: (rows) => run((tx) => insertSeed(tx, rows)),
  };
};
