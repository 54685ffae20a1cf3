import { DEFAULT_REGISTRATION_LIMITS, type RegistrationLimits } from "@mcpsm/mcp-oauth";
import { Config } from "effect";
import { whole } from "./security-config.js";

// The bounds of anonymous client registration at the service's own authorization server (POST
// /oauth/register, docs/security.md): MCP_OAUTH_REGISTRATION_*.

const d = DEFAULT_REGISTRATION_LIMITS;

export const registrationConfig: Config.Config<RegistrationLimits> = Config.all({
  maxBytes: whole("MCP_OAUTH_REGISTRATION_MAX_BYTES", d.maxBytes, 1024),
  maxRedirectUris: whole("MCP_OAUTH_REGISTRATION_MAX_REDIRECT_URIS", d.maxRedirectUris, 1),
  perAddressPerHour: whole("MCP_OAUTH_REGISTRATION_PER_ADDRESS_PER_HOUR", d.perAddressPerHour, 1),
  perHour: whole("MCP_OAUTH_REGISTRATION_PER_HOUR", d.perHour, 1),
  unusedClientTtlSeconds: whole(
    "MCP_OAUTH_REGISTRATION_UNUSED_CLIENT_TTL_HOURS",
    d.unusedClientTtlSeconds / 3600,
    1,
  ).pipe(Config.map((hours) => hours * 3600)),
  allowAnyRedirectUri: Config.boolean("MCP_OAUTH_REGISTRATION_ALLOW_ANY_REDIRECT_URI").pipe(
    Config.withDefault(d.allowAnyRedirectUri),
  ),
});
