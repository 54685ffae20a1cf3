import { Effect } from "effect";
import { insertRow } from "../table/table.js";
import { uniqueBreach } from "./breaches.js";
import type { Operations } from "./operations.js";

// Git connections and the git outbox (docs/api-rules.md §17; schema/git-entities.ts, GitSyncEntity).
// Noting a change is one upsert in the transaction of the write; claiming is one UPDATE over a
// FOR UPDATE SKIP LOCKED selection, so concurrent instances never lease the same entry; settling only
// applies while the settler still holds the lease.

/** The condition that server `s` uses provider `p` (itself, or a resource or prompt of it). */
const USES_PROVIDER = `(exists (select 1 from server_providers x where x.server_id = s.id and x.provider_id = any($2::text[]))
  or exists (select 1 from server_resources x join resources r on r.id = x.resource_id
             where x.server_id = s.id and r.provider_id = any($2::text[]))
  or exists (select 1 from server_prompts x join prompts q on q.id = x.prompt_id
             where x.server_id = s.id and q.provider_id = any($2::text[])))`;

/** The condition that an outbox entry is due: pending, its attempt due, unleased (or the lease ran out), quiet
 * (or pending for long); at `now`, `quietSince`, `pendingBefore`, given as parameter placeholders. */
const DUE = (now: string, quietSince: string, pendingBefore: string) =>
  `change_seq > pushed_seq and state <> 'OFF' and next_attempt_at <= ${now}
   and (lease_until is null or lease_until < ${now})
   and (changed_at <= ${quietSince} or pending_since <= ${pendingBefore})`;

export const gitSyncOperations: Operations<
  | "insertGitConnection"
  | "deleteGitConnection"
  | "findGitConnection"
  | "listGitConnections"
  | "countGitConnections"
  | "noteGitSyncChanges"
  | "findGitSync"
  | "claimGitSyncs"
  | "hasDueGitSyncs"
  | "settleGitSync"
> = (tables) => {
  const { gitConnections, gitSyncs } = tables;
  const insert = insertRow(gitConnections);
  const syncJson = gitSyncs.json("g");
  return (ctx) => ({
    insertGitConnection: (row) =>
      ctx.runner.guarded(
        Effect.asVoid(ctx.runner.rows(insert.sql, insert.params(row))).pipe(
          Effect.catchTag("ConstraintBreach", uniqueBreach(row.name)),
        ),
      ),
    // The servers' foreign key is ON DELETE SET NULL: they lose the connection, not their version.
    deleteGitConnection: (id) => Effect.asVoid(ctx.rows("delete from git_connections where id = $1", [id])),
    findGitConnection: (id) =>
      ctx.one(
        `select ${gitConnections.json("c")} as r from git_connections c where c.id = $1`,
        [id],
        gitConnections.decode,
      ),
    listGitConnections: (tenant) =>
      ctx.many(
        `select ${gitConnections.json("c")} as r from git_connections c where c.tenant = $1 order by c.created_at, c.id`,
        [tenant],
        gitConnections.decode,
      ),
    countGitConnections: (tenant) =>
      ctx.count("select count(*)::int as n from git_connections where tenant = $1", [tenant]),
    noteGitSyncChanges: (changes, at, offReason) =>
      Effect.asVoid(
        ctx.rows(
          `with affected as (
             select s.id, s.tenant, s.git_connection_id, s.id = any($1::text[]) as named from servers s
             where s.id = any($1::text[]) or (cardinality($2::text[]) > 0 and s.git_connection_id is not null and ${USES_PROVIDER})),
           pending as (
             insert into git_syncs as g (server_id, tenant, state, change_seq, pushed_seq, changed_at, pending_since,
               attempts, next_attempt_at, lease_owner, lease_until, commit, pushed_at, error, pushed_repo, pushed_folder)
             select a.id, a.tenant, 'PENDING', 1, 0, $3, $3, 0, $3, null, null, '', null, '', '', ''
             from affected a where a.git_connection_id is not null
             on conflict (server_id) do update set state = 'PENDING', change_seq = g.change_seq + 1,
               changed_at = excluded.changed_at, pending_since = coalesce(g.pending_since, excluded.changed_at),
               attempts = 0, next_attempt_at = excluded.changed_at
             returning 1),
           off as (
             update git_syncs g set state = 'OFF', pushed_seq = g.change_seq, pending_since = null, error = $4
             from affected a where g.server_id = a.id and a.named and a.git_connection_id is null
             returning 1)
           select (select count(*) from pending) + (select count(*) from off) as n`,
          [changes.serverIds, changes.providerIds, at.toISOString(), offReason],
        ),
      ),
    findGitSync: (serverId) =>
      ctx.one(`select ${syncJson} as r from git_syncs g where g.server_id = $1`, [serverId], gitSyncs.decode),
    claimGitSyncs: (claim) =>
      ctx.many(
        `update git_syncs g set lease_owner = $1, lease_until = $3
         where g.server_id in (
           select server_id from git_syncs
           where ${DUE("$2", "$4", "$5")}
           order by next_attempt_at limit $6 for update skip locked)
         returning ${syncJson} as r`,
        [
          claim.owner,
          claim.now.toISOString(),
          claim.leaseUntil.toISOString(),
          claim.quietSince.toISOString(),
          claim.pendingBefore.toISOString(),
          Math.max(0, Math.floor(claim.limit)),
        ],
        gitSyncs.decode,
      ),
    // A plain read, so an idle poll commits nothing and notifies no instance's read cache.
    hasDueGitSyncs: (claim) =>
      Effect.map(
        ctx.rows(`select 1 from git_syncs where ${DUE("$1", "$2", "$3")} limit 1`, [
          claim.now.toISOString(),
          claim.quietSince.toISOString(),
          claim.pendingBefore.toISOString(),
        ]),
        (result) => result.length > 0,
      ),
    settleGitSync: (serverId, owner, outcome) =>
      Effect.map(
        outcome.kind === "failed"
          ? ctx.rows(
              `update git_syncs set state = case when state = 'OFF' then 'OFF' else 'FAILED' end, error = $3,
                 attempts = attempts + 1, next_attempt_at = $4, lease_owner = null, lease_until = null
               where server_id = $1 and lease_owner = $2 returning 1`,
              [serverId, owner, outcome.error, outcome.retryAt.toISOString()],
            )
          : ctx.rows(
              `update git_syncs set pushed_seq = greatest(pushed_seq, $3),
                 state = case when state = 'OFF' then 'OFF' when change_seq > greatest(pushed_seq, $3) then 'PENDING' else 'SYNCED' end,
                 pending_since = case when change_seq > greatest(pushed_seq, $3) then changed_at else null end,
                 commit = $4, pushed_at = $5, error = '', attempts = 0, pushed_repo = $6, pushed_folder = $7,
                 lease_owner = null, lease_until = null
               where server_id = $1 and lease_owner = $2 returning 1`,
              [serverId, owner, outcome.seq, outcome.commit, outcome.at.toISOString(), outcome.repo, outcome.folder],
            ),
        (result) => result.length > 0,
      ),
  });
};
