import { Option } from "effect";
import type { McpSettings } from "../config.js";

// Where the service is reached from outside: the base of every server's canonical URL (its OAuth audience),
// and the Host and Origin values accepted (DNS-rebinding protection).

const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** The host names a base URL is reached under by default: its own, plus the localhost family for local ones. */
const defaultHostnames = (base: URL): ReadonlyArray<string> => {
  const host = base.hostname;
  const local = ["localhost", "127.0.0.1", "[::1]", "0.0.0.0", "[::]"].includes(host);
  return local ? [...new Set([...(host === "0.0.0.0" || host === "[::]" ? [] : [host]), ...LOCAL_HOSTS])] : [host];
};

export interface PublicSite {
  /** The canonical URL of a server: `<base>/mcp/<id>` (the audience of its OAuth tokens). */
  readonly resourceUrl: (serverId: string) => string;
  /** Its RFC 9728 protected resource metadata URL. */
  readonly metadataUrl: (serverId: string) => string;
  readonly docsUrl: () => string;
  /** The public URL of a page of the service at `path` (which starts with `/`). */
  readonly pageUrl: (path: string) => string;

  /** The page where a person approves or denies a tool call (docs/api-rules.md §20). */
  readonly approvalUrl: (id: string) => string;
  readonly allowedHosts: () => ReadonlyArray<string>;
  readonly allowedOrigins: () => ReadonlyArray<string>;
}

/**
 * The public site of the runtime. The base URL is MCP_PUBLIC_URL, else the listening URL, which may only be
 * known once the server listens: it is read on first use.
 */
export const publicSite = (settings: McpSettings, listenUrl: string | (() => string)): PublicSite => {
  let site: { origin: string; allowedHosts: Array<string>; allowedOrigins: Array<string> } | undefined;
  const get = () => {
    if (site === undefined) {
      const base = Option.getOrElse(
        settings.publicUrl,
        () => new URL(typeof listenUrl === "function" ? listenUrl() : listenUrl),
      );
      const allowedHosts = [...Option.getOrElse(settings.allowedHosts, () => defaultHostnames(base))];
      site = {
        origin: `${base.origin}${base.pathname.replace(/\/+$/, "")}`,
        allowedHosts,
        allowedOrigins: [...Option.getOrElse(settings.allowedOrigins, () => allowedHosts)],
      };
    }
    return site;
  };
  return {
    resourceUrl: (serverId) => `${get().origin}/mcp/${serverId}`,
    metadataUrl: (serverId) => `${get().origin}/.well-known/oauth-protected-resource/mcp/${serverId}`,
    docsUrl: () => `${get().origin}/docs`,
    pageUrl: (path) => `${get().origin}${path}`,

    approvalUrl: (id) => `${get().origin}/approvals/${id}`,
    allowedHosts: () => get().allowedHosts,
    allowedOrigins: () => get().allowedOrigins,
  };
};
