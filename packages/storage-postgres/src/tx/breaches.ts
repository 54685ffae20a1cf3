import { type RecordKind, ReferenceViolation, UniqueViolation } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import type { ConstraintBreach } from "../sql/db-errors.js";

// How the constraint breaches of a write become the port's typed failures. The constraint names are the
// ones the mapping (src/schema/entities.ts) gives.

/** The unique constraints the domain names, by the kind of record whose name they keep unique. */
const UNIQUE_NAMES: Readonly<Record<string, RecordKind>> = {
  providers_tenant_name_unique: "provider",
  tools_provider_id_name_unique: "tool",
  prompts_provider_id_name_unique: "prompt",
  resources_provider_id_name_unique: "resource",
  variables_tenant_name_unique: "variable",
  servers_tenant_name_unique: "server",
  git_connections_tenant_name_unique: "gitConnection",
};

/** What a foreign key points at, for messages about a missing target. */
const REFERENCED: Readonly<Record<string, string>> = {
  tools_provider_id_foreign: "provider",
  prompts_provider_id_foreign: "provider",
  resources_provider_id_foreign: "provider",
  server_providers_provider_id_foreign: "provider",
  server_providers_server_id_foreign: "server",
  server_tools_tool_id_foreign: "tool",
  server_tools_link_foreign: "provider link",
  server_tools_tool_of_provider: "tool of provider",
  server_resources_resource_id_foreign: "resource",
  server_resources_server_id_foreign: "server",
  server_prompts_prompt_id_foreign: "prompt",
  server_prompts_server_id_foreign: "server",
  server_tokens_server_id_foreign: "server",
  servers_git_connection_id_foreign: "git connection",
};

/** The key values in a PostgreSQL key detail such as `Key (provider_id)=(abc) is not present in table …`. */
const keyOf = (detail: string): string | undefined => /\)=\((.*)\) is not present/.exec(detail)?.[1];

/** A constraint breach no operation expects (a duplicate id, a bug) stays a defect. */
export const unexpected = (breach: ConstraintBreach) => Effect.die(breach);

/** Maps a unique breach of a write of a `kind` record named `name` to UniqueViolation. */
export const uniqueBreach =
  (name: string) =>
  (breach: ConstraintBreach): Effect.Effect<never, UniqueViolation> => {
    const clashing = breach.code === "23505" ? UNIQUE_NAMES[breach.constraint] : undefined;
    return clashing === undefined ? unexpected(breach) : Effect.fail(new UniqueViolation({ kind: clashing, name }));
  };

/** Maps the breaches of an insert of a `kind` record named `name`: a taken name, or a missing reference. */
export const insertBreach =
  (kind: RecordKind, name: string) =>
  (breach: ConstraintBreach): Effect.Effect<never, UniqueViolation | ReferenceViolation> => {
    if (breach.code === "23505") return uniqueBreach(name)(breach);
    const target = REFERENCED[breach.constraint] ?? "record";
    const key = keyOf(breach.detail);
    const detail =
      target === "provider link"
        ? `a tool is chosen for provider ${key === undefined ? "" : `(${key}) `}without the server linking that provider`
        : target === "tool of provider"
          ? `a tool is chosen under a provider it does not belong to${key === undefined ? "" : ` (tool, provider: ${key})`}`
          : `${target} ${key === undefined ? "" : `'${key}' `}does not exist`;
    return Effect.fail(new ReferenceViolation({ kind, detail }));
  };

/** Maps the breaches of a delete of the `kind` record `id` (held by a server link) to ReferenceViolation. */
export const deleteBreach =
  (kind: RecordKind, id: string) =>
  (breach: ConstraintBreach): Effect.Effect<never, ReferenceViolation> =>
    breach.code === "23503"
      ? Effect.fail(
          new ReferenceViolation({
            kind,
            detail:
              kind === "provider"
                ? `provider '${id}' (or one of its tools, prompts or resources) is used by a server`
                : `${kind} '${id}' is used by a server`,
          }),
        )
      : unexpected(breach);

/** Maps the breach of an insert of a `kind` record under a server that does not exist to ReferenceViolation. */
export const missingServerBreach =
  (kind: RecordKind, serverId: string) =>
  (breach: ConstraintBreach): Effect.Effect<never, ReferenceViolation> =>
    breach.code === "23503"
      ? Effect.fail(new ReferenceViolation({ kind, detail: `server '${serverId}' does not exist` }))
      : unexpected(breach);
