import type { ProviderWithTools, ServerGraph, ServerRow } from "@mcpsm/domain/storage";
import { Schema } from "effect";
import { rowDecoder } from "./row-decoder.js";
import type { describeRecordTables } from "./tables.js";

// The reads that return more than one table's rows: a server with its links, a provider with its tools, a
// server graph. Each is one JSON expression evaluated inside one statement, whatever the number of records,
// decoded by the domain's row schemas.

const EMPTY = `'[]'::json`;

/** A read of a nested shape: the SQL of its JSON for the row aliased `a`, and the decoder of that JSON. */
export interface Nested<T> {
  readonly json: (alias: string) => string;
  readonly decode: (json: unknown) => T;
}

export const describeGraphs = (tables: ReturnType<typeof describeRecordTables>) => {
  const { providers, tools, resources, prompts, servers } = tables;

  /**
   * A server row aliased `a` with its links: the provider links (each with its chosen tool ids), resource
   * ids and prompt ids, each in the order the client gave.
   */
  const server: Nested<ServerRow> = {
    json: (a) =>
      servers.json(a, [
        [
          "providers",
          `coalesce((select json_agg(json_build_object('providerId', sp.provider_id, 'toolIds',
             coalesce((select json_agg(st.tool_id order by st.ordinal) from server_tools st
                       where st.server_id = sp.server_id and st.provider_id = sp.provider_id), ${EMPTY}))
             order by sp.ordinal) from server_providers sp where sp.server_id = ${a}.id), ${EMPTY})`,
        ],
        [
          // The settings of chosen tools that have any, in the order the tools are chosen (docs/api-rules.md §20).
          "toolSettings",
          `coalesce((select json_agg(json_build_object('toolId', st.tool_id, 'alias', st.alias, 'description',
             st.description, 'fixedArgs', st.fixed_args, 'approval', st.approval) order by sp.ordinal, st.ordinal)
             from server_tools st join server_providers sp on sp.server_id = st.server_id and sp.provider_id = st.provider_id
             where st.server_id = ${a}.id and (st.alias <> '' or st.description <> '' or st.fixed_args <> '{}'::jsonb
               or st.approval <> 'INHERIT')), ${EMPTY})`,
        ],
        [
          "resourceIds",
          `coalesce((select json_agg(sr.resource_id order by sr.ordinal) from server_resources sr where sr.server_id = ${a}.id), ${EMPTY})`,
        ],
        [
          "promptIds",
          `coalesce((select json_agg(sq.prompt_id order by sq.ordinal) from server_prompts sq where sq.server_id = ${a}.id), ${EMPTY})`,
        ],
      ]),
    decode: servers.decode,
  };

  /**
   * The server aliased `a` with its links, the full records of its providers, of its chosen tools
   * (provider by provider), of its resources and of its prompts.
   */
  const decodeServerGraph = rowDecoder(
    Schema.Struct({
      server: servers.stored,
      providers: Schema.Array(providers.stored),
      tools: Schema.Array(tools.stored),
      resources: Schema.Array(resources.stored),
      prompts: Schema.Array(prompts.stored),
      gitProvider: Schema.NullOr(Schema.String),
    }),
  );
  const serverGraph: Nested<ServerGraph> = {
    json: (a) =>
      `json_build_object('server', ${server.json(a)},
        'providers', coalesce((select json_agg(${providers.json("gp")} order by gsp.ordinal)
            from server_providers gsp join providers gp on gp.id = gsp.provider_id where gsp.server_id = ${a}.id), ${EMPTY}),
        'tools', coalesce((select json_agg(${tools.json("gt")} order by gsp.ordinal, gst.ordinal)
            from server_tools gst
            join server_providers gsp on gsp.server_id = gst.server_id and gsp.provider_id = gst.provider_id
            join tools gt on gt.id = gst.tool_id where gst.server_id = ${a}.id), ${EMPTY}),
        'resources', coalesce((select json_agg(${resources.json("gr")} order by gsr.ordinal)
            from server_resources gsr join resources gr on gr.id = gsr.resource_id where gsr.server_id = ${a}.id), ${EMPTY}),
        'prompts', coalesce((select json_agg(${prompts.json("gq")} order by gsq.ordinal)
            from server_prompts gsq join prompts gq on gq.id = gsq.prompt_id where gsq.server_id = ${a}.id), ${EMPTY}),
        'gitProvider', (select gc.kind from git_connections gc where gc.id = ${a}.git_connection_id))`,
    decode: (json) => {
      const { gitProvider, ...graph } = decodeServerGraph(json);
      // As the memory store: no key without a git connection.
      return gitProvider === null ? graph : { ...graph, gitProvider };
    },
  };

  /** The provider aliased `a` with all its tools in creation order. */
  const providerWithTools: Nested<ProviderWithTools> = {
    json: (a) =>
      `json_build_object('provider', ${providers.json(a)}, 'tools', coalesce((select json_agg(${tools.json("wt")} order by wt.created_at, wt.id)
          from tools wt where wt.provider_id = ${a}.id), ${EMPTY}))`,
    decode: rowDecoder(Schema.Struct({ provider: providers.stored, tools: Schema.Array(tools.stored) })),
  };

  return { server, serverGraph, providerWithTools };
};
