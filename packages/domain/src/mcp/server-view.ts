import { Effect, Either } from "effect";
import type { ProviderRow, ServerGraph, ServerRow } from "../storage/rows.js";
import type { ReadTx } from "../storage/storage-port.js";
import type { ToolHeader } from "../tool/tool-schema.js";
import type { McpCaller } from "./server-access.js";
import { read } from "../use-case/use-case-kit.js";
import { CallerValueNeeded, resolveVariables } from "../caller-value/caller-value-resolution.js";
import {
  type HeaderResolution,
  referencedVariables,
  refusedVariablesError,
  resolveHeaderTemplates,
} from "./header-templates.js";

// What the MCP endpoint reads from the store. A served server is compiled once per *revision*: the server's
// own version plus the version of every provider it draws tools, prompts or resources from. Every change
// made through the management API bumps one of those (docs/api-rules.md §7: a change to a provider's tools, prompts
// or resources is a change of the provider; every server write and association change bumps the server),
// so comparing revisions, read fresh from the shared store on each request, tells any instance whether its
// compiled copy is still current, without reloading the whole graph.

/** A server with everything it serves over MCP, read in one snapshot, and the revision it was read at. */
export interface McpServerView extends ServerGraph {
  /** Every provider the server draws from (its own providers and those of its prompts and resources). */
  readonly providersById: ReadonlyMap<string, ProviderRow>;
  /** The providers whose versions make up the revision (pass them to `mcpServerRevision`). */
  readonly dependencyProviderIds: ReadonlyArray<string>;
  /** Identifies this exact content; equal keys mean nothing the MCP endpoint serves has changed. */
  readonly revision: string;
}

/** The revision key of a server given the versions of the providers it depends on. */
const revisionKey = (server: ServerRow, versions: ReadonlyMap<string, number | undefined>): string =>
  `${server.version}|${[...versions.keys()]
    .sort()
    .map((id) => `${id}@${versions.get(id) ?? "gone"}`)
    .join(",")}`;

/** The providers a server depends on: its own, plus those of its prompts and resources when known. */
const dependencyIds = (server: ServerRow, extra: Iterable<string>): ReadonlyArray<string> => [
  ...new Set([...server.providers.map((link) => link.providerId), ...extra]),
];

const versionsOf = (tx: ReadTx, ids: ReadonlyArray<string>) =>
  Effect.map(
    Effect.forEach(ids, (id) => Effect.map(tx.findProvider(id), (row) => [id, row?.version] as const)),
    (pairs) => new Map(pairs),
  );

/** Loads everything a server serves over MCP, in one read-only snapshot; undefined when it does not exist. */
export const loadMcpServerView = (serverId: string) =>
  read((tx) =>
    Effect.gen(function* () {
      const graph = yield* tx.findServerGraph(serverId);
      if (graph === undefined) return undefined;
      const providersById = new Map(graph.providers.map((row) => [row.id, row]));
      const extraIds = [...graph.prompts, ...graph.resources]
        .map((row) => row.providerId)
        .filter((id) => !providersById.has(id));
      for (const id of new Set(extraIds)) {
        const row = yield* tx.findProvider(id);
        if (row !== undefined) providersById.set(id, row);
      }
      const ids = dependencyIds(graph.server, extraIds);
      const versions = new Map(ids.map((id) => [id, providersById.get(id)?.version]));
      const view: McpServerView = {
        ...graph,
        providersById,
        dependencyProviderIds: ids,
        revision: revisionKey(graph.server, versions),
      };
      return view;
    }),
  );

/**
 * The current revision of a server (and its row, for the owner's tenant) — a point read of the server and
 * of each provider it depends on; undefined when the server no longer exists. `knownProviderIds` are the
 * providers the caller's compiled copy depends on.
 */
export const mcpServerRevision = (serverId: string, knownProviderIds: Iterable<string>) =>
  read((tx) =>
    Effect.gen(function* () {
      const server = yield* tx.findServer(serverId);
      if (server === undefined) return undefined;
      const versions = yield* versionsOf(tx, dependencyIds(server, knownProviderIds));
      return { server, revision: revisionKey(server, versions) };
    }),
  );

const NO_VALUES: ReadonlyMap<string, string> = new Map();

/**
 * `resolveToolHeaders` when it reads nothing: the tool's headers reference no variable (or `known` holds the
 * values already read for this call), or a name is refused. Undefined when the owner's variables must be read.
 * A plain function, so that a tools/call whose headers need no read runs no effect for them.
 */
export const resolveToolHeadersNow = (
  secretPrefix: string,
  headers: ReadonlyArray<ToolHeader>,
  known?: ReadonlyMap<string, string>,
): HeaderResolution | undefined => {
  const names = referencedVariables(headers);
  const refused = refusedVariablesError(secretPrefix, names);
  if (refused !== undefined) return Either.left(refused);
  if (names.length === 0 || known !== undefined)
    return resolveHeaderTemplates(headers, secretPrefix, known ?? NO_VALUES);
  return undefined;
};

/**
 * A tool's headers with `${NAME}` resolved from the variables of the server's owner `tenant` for `caller`
 * (a per-caller variable: its own value, else the default; docs/api-rules.md §23), under the secretPrefix
 * rule. Refused names fail (PermissionDenied) before any variable is read; a missing variable fails with
 * FailedPrecondition, a per-caller one without any value with CallerValueNeeded, a secret under a key the
 * service lacks with ConfigurationFault. `known`: the values already read for this call (the fast lane's).
 */
export const resolveToolHeaders = (
  tenant: string,
  secretPrefix: string,
  headers: ReadonlyArray<ToolHeader>,
  caller: McpCaller,
  known?: ReadonlyMap<string, string>,
) =>
  Effect.gen(function* () {
    const now = resolveToolHeadersNow(secretPrefix, headers, known);
    if (now !== undefined) return yield* now;
    const names = referencedVariables(headers);
    const { values, needed } = yield* resolveVariables(tenant, names, caller);
    const [first] = needed;
    if (first !== undefined) return yield* new CallerValueNeeded({ variable: first });
    return yield* resolveHeaderTemplates(headers, secretPrefix, values);
  });
