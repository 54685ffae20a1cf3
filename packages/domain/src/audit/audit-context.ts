import { Context } from "effect";

/**
 * Who asked for a write and in which request: what an audit event records besides the change itself. The
 * HTTP app provides it per request; `transact` (use-case-kit) then records one event per transaction that
 * wrote something. Without it (a CLI, another team's code calling the use cases) nothing is recorded.
 */
export class AuditContext extends Context.Tag("@mcpsm/domain/AuditContext")<
  AuditContext,
  {
    /** The tenant the event belongs to (the caller's). */
    readonly tenant: string;
    /** The access token's subject. */
    readonly sub: string;
    /** The OAuth client the token was issued to ("" when the token does not say). */
    readonly clientId: string;
    readonly requestId: string;
    /** The operation id (`createServer`, `updateProviderTool`, ...). */
    readonly operation: string;
  }
>() {}
