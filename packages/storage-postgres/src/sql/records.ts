import type {
  PromptRow,
  ProviderRow,
  ProviderWithTools,
  ResourceRow,
  ServerGraph,
  ServerProviderLink,
  ServerRow,
  ServerTokenRow,
  ToolRow,
  VariableRow,
} from "@mcpsm/domain";

// Every record leaves the database as one JSON object built by the SQL fragments below (`json_build_object`
// with the domain's field names) and is turned into a row by the matching decoder. One shape for single
// finds, lists and nested graphs; timestamps travel as epoch milliseconds, so no time zone or text format of
// the session can change them.

/**
 * Epoch milliseconds of a timestamptz column. Rounded: the columns keep milliseconds, but on servers whose
 * `extract` answers a double (PostgreSQL 13 and older) the product can fall just below the whole number.
 */
const ms = (column: string) => `round(extract(epoch from ${column}) * 1000)::float8`;

/** JSON of a `providers` row aliased `a`. */
export const providerJson = (a: string) =>
  `json_build_object('id', ${a}.id, 'tenant', ${a}.tenant, 'createdAt', ${ms(`${a}.created_at`)}, 'updatedAt', ${ms(`${a}.updated_at`)}, 'version', ${a}.version, 'apiType', ${a}.api_type, 'visibilityType', ${a}.visibility_type, 'baseURL', ${a}.base_url, 'documentURL', ${a}.document_url, 'iconURL', ${a}.icon_url, 'secretPrefix', ${a}.secret_prefix, 'name', ${a}.name, 'description', ${a}.description, 'oauth2Config', ${a}.oauth2_config)`;

/** JSON of a `tools` row aliased `a`. */
export const toolJson = (a: string) =>
  `json_build_object('id', ${a}.id, 'providerId', ${a}.provider_id, 'createdAt', ${ms(`${a}.created_at`)}, 'updatedAt', ${ms(`${a}.updated_at`)}, 'method', ${a}.method, 'path', ${a}.path, 'name', ${a}.name, 'title', ${a}.title, 'description', ${a}.description, 'pathArgsJSONSchema', ${a}.path_args_json_schema, 'queryArgsJSONSchema', ${a}.query_args_json_schema, 'reqBodyJSONSchema', ${a}.req_body_json_schema, 'headers', ${a}.headers, 'oauth2Scopes', ${a}.oauth2_scopes)`;

/** JSON of a `prompts` row aliased `a`. */
export const promptJson = (a: string) =>
  `json_build_object('id', ${a}.id, 'providerId', ${a}.provider_id, 'createdAt', ${ms(`${a}.created_at`)}, 'updatedAt', ${ms(`${a}.updated_at`)}, 'name', ${a}.name, 'description', ${a}.description, 'arguments', ${a}.arguments, 'messages', ${a}.messages)`;

/** JSON of a `resources` row aliased `a`. */
export const resourceJson = (a: string) =>
  `json_build_object('id', ${a}.id, 'providerId', ${a}.provider_id, 'createdAt', ${ms(`${a}.created_at`)}, 'updatedAt', ${ms(`${a}.updated_at`)}, 'name', ${a}.name, 'description', ${a}.description, 'uri', ${a}.uri, 'mimeType', ${a}.mime_type, 'size', ${a}.size, 'annotations', ${a}.annotations)`;

/** JSON of a `variables` row aliased `a`. */
export const variableJson = (a: string) =>
  `json_build_object('id', ${a}.id, 'tenant', ${a}.tenant, 'createdAt', ${ms(`${a}.created_at`)}, 'updatedAt', ${ms(`${a}.updated_at`)}, 'type', ${a}.type, 'name', ${a}.name, 'value', ${a}.value)`;

/** JSON of a `server_tokens` row aliased `a`. */
export const serverTokenJson = (a: string) =>
  `json_build_object('id', ${a}.id, 'serverId', ${a}.server_id, 'tenant', ${a}.tenant, 'createdAt', ${ms(`${a}.created_at`)}, 'expiresAt', ${ms(`${a}.expires_at`)}, 'name', ${a}.name, 'valueHash', ${a}.value_hash)`;

const EMPTY = `'[]'::json`;

/**
 * JSON of a `servers` row aliased `a` with its links: the provider links (each with its chosen tool ids),
 * resource ids and prompt ids, each in the order the client gave.
 */
export const serverJson = (a: string) =>
  `json_build_object('id', ${a}.id, 'tenant', ${a}.tenant, 'createdAt', ${ms(`${a}.created_at`)}, 'updatedAt', ${ms(`${a}.updated_at`)}, 'version', ${a}.version, 'name', ${a}.name, 'description', ${a}.description, 'requestHeadersProxyEnabled', ${a}.request_headers_proxy_enabled, 'dynamicToolDiscoveryEnabled', ${a}.dynamic_tool_discovery_enabled,
    'providers', coalesce((select json_agg(json_build_object('providerId', sp.provider_id, 'toolIds',
        coalesce((select json_agg(st.tool_id order by st.ordinal) from server_tools st
                  where st.server_id = sp.server_id and st.provider_id = sp.provider_id), ${EMPTY}))
        order by sp.ordinal) from server_providers sp where sp.server_id = ${a}.id), ${EMPTY}),
    'resourceIds', coalesce((select json_agg(sr.resource_id order by sr.ordinal) from server_resources sr where sr.server_id = ${a}.id), ${EMPTY}),
    'promptIds', coalesce((select json_agg(sq.prompt_id order by sq.ordinal) from server_prompts sq where sq.server_id = ${a}.id), ${EMPTY}))`;

/**
 * JSON of a server graph: the server of alias `a` with its links, the full records of its providers, of
 * its chosen tools (provider by provider), of its resources and of its prompts. One expression, evaluated
 * as part of one statement, whatever the number of records.
 */
export const serverGraphJson = (a: string) =>
  `json_build_object('server', ${serverJson(a)},
    'providers', coalesce((select json_agg(${providerJson("gp")} order by gsp.ordinal)
        from server_providers gsp join providers gp on gp.id = gsp.provider_id where gsp.server_id = ${a}.id), ${EMPTY}),
    'tools', coalesce((select json_agg(${toolJson("gt")} order by gsp.ordinal, gst.ordinal)
        from server_tools gst
        join server_providers gsp on gsp.server_id = gst.server_id and gsp.provider_id = gst.provider_id
        join tools gt on gt.id = gst.tool_id where gst.server_id = ${a}.id), ${EMPTY}),
    'resources', coalesce((select json_agg(${resourceJson("gr")} order by gsr.ordinal)
        from server_resources gsr join resources gr on gr.id = gsr.resource_id where gsr.server_id = ${a}.id), ${EMPTY}),
    'prompts', coalesce((select json_agg(${promptJson("gq")} order by gsq.ordinal)
        from server_prompts gsq join prompts gq on gq.id = gsq.prompt_id where gsq.server_id = ${a}.id), ${EMPTY}))`;

/** JSON of a provider aliased `a` with all its tools in creation order. */
export const providerWithToolsJson = (a: string) =>
  `json_build_object('provider', ${providerJson(a)}, 'tools', coalesce((select json_agg(${toolJson("wt")} order by wt.created_at, wt.id)
      from tools wt where wt.provider_id = ${a}.id), ${EMPTY}))`;

// Decoders. The JSON comes from the fragments above, so its shape is known; the casts only name it.

// biome-ignore lint/suspicious/noExplicitAny: decoded JSON of a known shape.
type Json = any;

const date = (value: Json): Date => new Date(value as number);

export const decodeProvider = (j: Json): ProviderRow => ({
  id: j.id,
  tenant: j.tenant,
  createdAt: date(j.createdAt),
  updatedAt: date(j.updatedAt),
  version: j.version,
  apiType: j.apiType,
  visibilityType: j.visibilityType,
  baseURL: j.baseURL,
  documentURL: j.documentURL,
  iconURL: j.iconURL,
  secretPrefix: j.secretPrefix,
  name: j.name,
  description: j.description,
  oauth2Config:
    j.oauth2Config === null || j.oauth2Config === undefined
      ? null
      : {
          clientID: j.oauth2Config.clientID,
          clientSecretCipher: j.oauth2Config.clientSecretCipher ?? null,
          authURL: j.oauth2Config.authURL,
          tokenURL: j.oauth2Config.tokenURL,
        },
});

export const decodeTool = (j: Json): ToolRow => ({
  id: j.id,
  providerId: j.providerId,
  createdAt: date(j.createdAt),
  updatedAt: date(j.updatedAt),
  method: j.method,
  path: j.path,
  name: j.name,
  title: j.title,
  description: j.description,
  pathArgsJSONSchema: j.pathArgsJSONSchema ?? null,
  queryArgsJSONSchema: j.queryArgsJSONSchema ?? null,
  reqBodyJSONSchema: j.reqBodyJSONSchema ?? null,
  headers: j.headers,
  oauth2Scopes: j.oauth2Scopes,
});

export const decodePrompt = (j: Json): PromptRow => ({
  id: j.id,
  providerId: j.providerId,
  createdAt: date(j.createdAt),
  updatedAt: date(j.updatedAt),
  name: j.name,
  description: j.description,
  arguments: j.arguments,
  messages: j.messages,
});

export const decodeResource = (j: Json): ResourceRow => ({
  id: j.id,
  providerId: j.providerId,
  createdAt: date(j.createdAt),
  updatedAt: date(j.updatedAt),
  name: j.name,
  description: j.description,
  uri: j.uri,
  mimeType: j.mimeType,
  size: Number(j.size),
  annotations: j.annotations,
});

export const decodeVariable = (j: Json): VariableRow => ({
  id: j.id,
  tenant: j.tenant,
  createdAt: date(j.createdAt),
  updatedAt: date(j.updatedAt),
  type: j.type,
  name: j.name,
  value: j.value,
});

export const decodeServerToken = (j: Json): ServerTokenRow => ({
  id: j.id,
  serverId: j.serverId,
  tenant: j.tenant,
  createdAt: date(j.createdAt),
  expiresAt: j.expiresAt === null ? null : date(j.expiresAt),
  name: j.name,
  valueHash: j.valueHash,
});

export const decodeServer = (j: Json): ServerRow => ({
  id: j.id,
  tenant: j.tenant,
  createdAt: date(j.createdAt),
  updatedAt: date(j.updatedAt),
  version: j.version,
  name: j.name,
  description: j.description,
  requestHeadersProxyEnabled: j.requestHeadersProxyEnabled,
  dynamicToolDiscoveryEnabled: j.dynamicToolDiscoveryEnabled,
  providers: (j.providers as Array<Json>).map(
    (link): ServerProviderLink => ({ providerId: link.providerId, toolIds: link.toolIds }),
  ),
  resourceIds: j.resourceIds,
  promptIds: j.promptIds,
});

export const decodeProviderWithTools = (j: Json): ProviderWithTools => ({
  provider: decodeProvider(j.provider),
  tools: (j.tools as Array<Json>).map(decodeTool),
});

export const decodeServerGraph = (j: Json): ServerGraph => ({
  server: decodeServer(j.server),
  providers: (j.providers as Array<Json>).map(decodeProvider),
  tools: (j.tools as Array<Json>).map(decodeTool),
  resources: (j.resources as Array<Json>).map(decodeResource),
  prompts: (j.prompts as Array<Json>).map(decodePrompt),
});
