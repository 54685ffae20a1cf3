import { Clock, Effect } from "effect";
import type { StorageTx } from "../storage/storage-port.js";

// Every change a git-synced server's repository must show passes through one of three writes: a server
// row written (its fields or members), or a provider's version moved (docs/api-rules.md §7: a change of
// its tools, prompts or resources is a change of the provider). So the outbox is fed here, around the
// storage of each write transaction, rather than in each use case: a use case cannot forget it, and the
// entry commits (or rolls back) with the change itself.

/** `work`, noting at its end (in the same transaction) the servers whose repository must follow its writes. */
export const notingGitSync =
  <A, E, R>(work: (tx: StorageTx) => Effect.Effect<A, E, R>) =>
  (tx: StorageTx): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const serverIds = new Set<string>();
      const providerIds = new Set<string>();
      const noting: StorageTx = {
        ...tx,
        // A new server without a git connection has no outbox entry to create or turn off: nothing to note.
        insertServer: (row, maxServers) =>
          Effect.tap(tx.insertServer(row, maxServers), (inserted) => {
            if (inserted && row.gitConnectionId) serverIds.add(row.id);
          }),
        updateServer: (row, expected) =>
          Effect.tap(tx.updateServer(row, expected), (applied) => {
            if (applied) serverIds.add(row.id);
          }),
        updateProvider: (row, expected) =>
          Effect.tap(tx.updateProvider(row, expected), (applied) => {
            if (applied) providerIds.add(row.id);
          }),
      };
      return Effect.tap(work(noting), () =>
        serverIds.size === 0 && providerIds.size === 0
          ? Effect.void
          : Effect.flatMap(Clock.currentTimeMillis, (ms) =>
              tx.noteGitSyncChanges({ serverIds: [...serverIds], providerIds: [...providerIds] }, new Date(ms), ""),
            ),
      );
    });
