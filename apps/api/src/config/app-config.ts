import type { RegistrationLimits } from "@mcpsm/mcp-oauth";
import { type McpSettings, mcpSettingsConfig } from "@mcpsm/mcp-runtime";
import { Config, ConfigError, Effect, Either, Option, Redacted } from "effect";
import { type GitSyncConfig, gitSyncConfig } from "./git-sync-config.js";
import { type ImportSettings, importConfig } from "./import-config.js";
import { registrationConfig } from "./registration-config.js";
import { type MemorySettings, memoryConfig } from "./memory-config.js";
import { type OperationsSettings, operationsConfig } from "./operations-config.js";
import { securityConfig, type SecuritySettings } from "./security-config.js";

/**
 * How access tokens are checked: JWTs against an authorization server's key set, opaque tokens by RFC 7662
 * introspection at the authorization server, or the built-in dev-auth key.
 */
export type AuthConfig =
  | {
      readonly mode: "jwks";
      readonly jwksUrl: URL;
      readonly issuer: string;
      readonly audience: string;
      readonly tenantClaim: string;
      /** Least time between two key set fetches (an unknown `kid` triggers one); default 30 s. */
      readonly jwksCooldownMs?: number;
    }
  | {
      readonly mode: "introspection";
      readonly introspectionUrl: URL;
      readonly clientId: string;
      readonly clientSecret: Redacted.Redacted<string>;
      readonly issuer: string;
      readonly audience: string;
      readonly tenantClaim: string;
    }
  | { readonly mode: "dev"; readonly tenantClaim: string };

/** Everything the service reads from its environment. */
export interface AppConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly logLevel: string;
  readonly auth: AuthConfig;
  /** 32 bytes; when absent, one is generated once into the data directory. */
  readonly encryptionKey: Option.Option<Uint8Array>;
  /** Previous keys (ENCRYPTION_KEYS_OLD): they still decrypt, never encrypt; `rekey` retires them. */
  readonly encryptionKeysOld?: ReadonlyArray<Uint8Array>;
  /** Rate limits, CORS and HTTP limits; defaults when absent. */
  readonly security?: SecuritySettings;
  /** How OpenAPI descriptions are read (worker threads, deadline, memory, concurrency); defaults when absent. */
  readonly imports?: ImportSettings;
  readonly quotas: {
    readonly serversPerTenant: number;
    readonly variablesPerTenant: number;
    readonly providersPerTenant: number;
    readonly toolsPerProvider: number;
    readonly tokensPerServer: number;
  };
  /** The MCP endpoint (`/mcp/{serverId}`): public URL, Host/Origin allow-lists, upstream policy and limits. */
  readonly mcp?: McpSettings;
  /**
   * MCP_OAUTH_SERVER: the service is the OAuth authorization server of its own MCP endpoints (for
   * OAuth-only clients). Default: on in dev-auth mode, off otherwise.
   */
  readonly mcpOAuthServer?: Option.Option<boolean>;
  /** MCP_OAUTH_REGISTRATION_*: bounds of anonymous client registration; defaults when absent. */
  readonly mcpOAuthRegistration?: RegistrationLimits;
  /**
   * MCP_OAUTH_SIGNIN_CLIENT_ID (+ _SECRET, _SCOPE): consent on the service's OAuth page by signing in at the
   * identity provider of AUTH_ISSUER as this client of it (authorization code + PKCE, redirect URI
   * `<public URL>/oauth/signin/callback`). Only with AUTH_* (not in dev-auth mode).
   */
  readonly mcpOAuthSignIn?: Option.Option<McpOAuthSignInConfig>;
  /**
   * Base URL of the OAuth 2.0 authorization server, for the OpenAPI document (`{authUrl}/oauth2/auth` and
   * `{authUrl}/oauth2/token`). Unset: `AUTH_ISSUER` when it is an http(s) URL, else a placeholder.
   */
  readonly authUrl?: string | undefined;
  /**
   * CONSOLE_OAUTH_CLIENT_ID: the web console's public OAuth client at that authorization server; with it (and
   * an authorization server) /console signs in by authorization code + PKCE, else by a pasted token.
   */
  readonly consoleClientId?: string | undefined;
  /** Metrics listener and audit retention; defaults when absent. */
  readonly operations?: OperationsSettings;
  /** The git sync worker (docs/api-rules.md §17); on with defaults when absent. */
  readonly gitSync?: GitSyncConfig;
  /** The quiet-time collection of the service's entry point; none when absent. */
  readonly memory?: MemorySettings;
}

/** The service as a client of the identity provider, for consent by signing in. */
export interface McpOAuthSignInConfig {
  readonly clientId: string;
  readonly clientSecret: Option.Option<Redacted.Redacted<string>>;
  readonly scope: string;
}

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "must be a whole number of at least 1", validation: (n) => n >= 1 }),
    Config.withDefault(fallback),
  );

const httpsOrHttpUrl = (name: string) =>
  Config.string(name).pipe(
    Config.mapOrFail((value) => {
      try {
        const url = new URL(value);
        if (url.protocol === "https:" || url.protocol === "http:") return Either.right(url);
      } catch {}
      return Either.left(ConfigError.InvalidData([name], "must be an absolute http(s) URL"));
    }),
  );

/** A 32-byte key in base64, or why it is not one (never the value itself). */
const decodeKey = (text: string): Uint8Array | undefined => {
  const bytes = Buffer.from(text.trim(), "base64");
  return bytes.length === 32 ? new Uint8Array(bytes) : undefined;
};

const key32 = Config.redacted("ENCRYPTION_KEY").pipe(
  Config.mapOrFail((secret) => {
    const key = decodeKey(Redacted.value(secret));
    return key !== undefined
      ? Either.right(key)
      : Either.left(ConfigError.InvalidData(["ENCRYPTION_KEY"], "must be 32 bytes, base64-encoded"));
  }),
);

const oldKeys = Config.option(Config.redacted("ENCRYPTION_KEYS_OLD")).pipe(
  Config.mapOrFail((secret): Either.Either<ReadonlyArray<Uint8Array>, ConfigError.ConfigError> => {
    if (Option.isNone(secret)) return Either.right([]);
    const parts = Redacted.value(secret.value)
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "");
    const keys = parts.map(decodeKey);
    const bad = keys.flatMap((key, index) => (key === undefined ? [index + 1] : []));
    return bad.length === 0
      ? Either.right(keys as ReadonlyArray<Uint8Array>)
      : Either.left(
          ConfigError.InvalidData(
            ["ENCRYPTION_KEYS_OLD"],
            `must be comma-separated 32-byte base64 keys (entry ${bad.join(", ")} is not)`,
          ),
        );
  }),
);

const authConfig = Config.all({
  jwksUrl: Config.option(httpsOrHttpUrl("AUTH_JWKS_URL")),
  introspectionUrl: Config.option(httpsOrHttpUrl("AUTH_INTROSPECTION_URL")),
  clientId: Config.option(Config.nonEmptyString("AUTH_INTROSPECTION_CLIENT_ID")),
  clientSecret: Config.option(Config.redacted("AUTH_INTROSPECTION_CLIENT_SECRET")),
  issuer: Config.option(Config.nonEmptyString("AUTH_ISSUER")),
  audience: Config.option(Config.nonEmptyString("AUTH_AUDIENCE")),
  tenantClaim: Config.nonEmptyString("AUTH_TENANT_CLAIM").pipe(Config.withDefault("sub")),
  jwksCooldownSeconds: Config.integer("AUTH_JWKS_COOLDOWN_SECONDS").pipe(
    Config.validate({ message: "must be a whole number of seconds, 0 or more", validation: (n) => n >= 0 }),
    Config.withDefault(30),
  ),
}).pipe(
  Config.mapOrFail((c): Either.Either<AuthConfig, ConfigError.ConfigError> => {
    const { jwksUrl, introspectionUrl, clientId, clientSecret, issuer, audience, tenantClaim } = c;
    const invalid = (message: string) => Either.left(ConfigError.InvalidData(["AUTH_ISSUER"], message));
    if (Option.isSome(jwksUrl) && Option.isSome(introspectionUrl))
      return invalid("set AUTH_JWKS_URL (JWT access tokens) or AUTH_INTROSPECTION_URL (opaque tokens), not both");
    if (Option.isSome(introspectionUrl)) {
      if (Option.isSome(clientId) && Option.isSome(clientSecret) && Option.isSome(issuer) && Option.isSome(audience))
        return Either.right({
          mode: "introspection",
          introspectionUrl: introspectionUrl.value,
          clientId: clientId.value,
          clientSecret: clientSecret.value,
          issuer: issuer.value,
          audience: audience.value,
          tenantClaim,
        });
      return invalid(
        "AUTH_INTROSPECTION_URL needs AUTH_INTROSPECTION_CLIENT_ID, AUTH_INTROSPECTION_CLIENT_SECRET, AUTH_ISSUER and AUTH_AUDIENCE",
      );
    }
    if (Option.isSome(clientId) || Option.isSome(clientSecret))
      return invalid("AUTH_INTROSPECTION_CLIENT_ID and _SECRET are only used with AUTH_INTROSPECTION_URL");
    if (Option.isSome(jwksUrl) && Option.isSome(issuer) && Option.isSome(audience))
      return Either.right({
        mode: "jwks",
        jwksUrl: jwksUrl.value,
        issuer: issuer.value,
        audience: audience.value,
        tenantClaim,
        jwksCooldownMs: c.jwksCooldownSeconds * 1000,
      });
    if (Option.isNone(jwksUrl) && Option.isNone(issuer) && Option.isNone(audience))
      return Either.right({ mode: "dev", tenantClaim });
    return Either.left(
      ConfigError.InvalidData(["AUTH_JWKS_URL"], "AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE must be set together"),
    );
  }),
);

/** The service configuration, read from environment variables. */
export const appConfig: Config.Config<AppConfig> = Config.all({
  port: Config.integer("PORT").pipe(
    Config.validate({ message: "must be a port number from 0 to 65535", validation: (n) => n >= 0 && n <= 65535 }),
    Config.withDefault(8080),
  ),
  host: Config.nonEmptyString("HOST").pipe(Config.withDefault("127.0.0.1")),
  dataDir: Config.nonEmptyString("DATA_DIR").pipe(Config.withDefault("./.data")),
  logLevel: Config.literal(
    "fatal",
    "error",
    "warn",
    "info",
    "debug",
    "trace",
    "silent",
  )("LOG_LEVEL").pipe(Config.withDefault("info" as const)),
  auth: authConfig,
  encryptionKey: Config.option(key32),
  encryptionKeysOld: oldKeys,
  security: securityConfig,
  imports: importConfig,
  quotas: Config.all({
    serversPerTenant: positive("QUOTA_SERVERS_PER_TENANT", 1_000),
    variablesPerTenant: positive("QUOTA_VARIABLES_PER_TENANT", 10_000),
    providersPerTenant: positive("QUOTA_PROVIDERS_PER_TENANT", 1_000),
    toolsPerProvider: positive("QUOTA_TOOLS_PER_PROVIDER", 1_000),
    tokensPerServer: positive("QUOTA_TOKENS_PER_SERVER", 100),
  }),
  mcp: mcpSettingsConfig,
  mcpOAuthServer: Config.option(Config.boolean("MCP_OAUTH_SERVER")),
  mcpOAuthRegistration: registrationConfig,
  mcpOAuthSignIn: Config.option(
    Config.all({
      clientId: Config.nonEmptyString("MCP_OAUTH_SIGNIN_CLIENT_ID"),
      clientSecret: Config.option(Config.redacted("MCP_OAUTH_SIGNIN_CLIENT_SECRET")),
      scope: Config.nonEmptyString("MCP_OAUTH_SIGNIN_SCOPE").pipe(Config.withDefault("openid")),
    }),
  ),
  authUrl: Config.option(httpsOrHttpUrl("AUTH_URL")).pipe(
    Config.map(Option.match({ onNone: () => undefined, onSome: (url) => url.href })),
  ),
  consoleClientId: Config.option(Config.nonEmptyString("CONSOLE_OAUTH_CLIENT_ID")).pipe(
    Config.map(Option.getOrUndefined),
  ),
  operations: operationsConfig,
  gitSync: gitSyncConfig,
  memory: memoryConfig,
});

/** Loads the configuration, or a readable message listing every bad value. */
export const loadAppConfig = (): Promise<Either.Either<AppConfig, string>> =>
  Effect.runPromise(
    Effect.either(appConfig).pipe(Effect.map(Either.mapLeft((error) => `invalid configuration: ${String(error)}`))),
  );
