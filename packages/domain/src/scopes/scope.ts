import { Schema } from "effect";

/** Every OAuth 2.0 scope of the interface (spec section 5), with its meaning. */
export const SCOPES = {
  "gitconnection:list": "List Git connections",
  "gitconnection:delete": "Delete Git connection",
  "gitconnection:create": "Create Git connection",
  "variable:list": "List variables",
  "variable:create": "Create variable",
  "variable:update": "Update variable",
  "variable:delete": "Delete variable",
  "provider:list": "List providers",
  "provider:create": "Create provider",
  "provider:read": "Get provider",
  "provider:update": "Update provider",
  "provider:delete": "Delete provider",
  "server:list": "List MCP servers",
  "server:create": "Create MCP server",
  "server:read": "Get MCP server",
  "server:update": "Update MCP server",
  "server:delete": "Delete MCP server",
  "server:create_token": "Create MCP server token",
  "audit:read": "Read the audit trail",
  "approval:decide": "Decide on tool calls waiting for approval",
} as const;

/** The scope identifiers. */
export const Scope = Schema.Literal(...(Object.keys(SCOPES) as Array<keyof typeof SCOPES>));
export type Scope = typeof Scope.Type;

/** Every scope, in the order of the spec. */
export const ALL_SCOPES: ReadonlyArray<Scope> = Object.keys(SCOPES) as Array<Scope>;
