import { api, run } from "../api/client.js";
import type { Problem } from "../api/problem.js";
import { currentToken } from "../api/session.js";

// The credential "Try a tool" calls /mcp/{id} with, so a signed-in person never pastes a server token.
// /mcp accepts server tokens and MCP-audience OAuth tokens only; the management token is refused there by
// the contract (docs/api-rules.md §3, docs/mcp.md "Who may call"), and the service's own OAuth server can only
// issue after a consent that itself needs a server token or an identity provider (none in dev-auth mode).
// So the console mints an ordinary server token through the management API, named "console: try a tool",
// that expires CREDENTIAL_MINUTES later, keeps its value in this page's memory only (never storage), reuses
// it while it has a minute left, and revokes it when the page goes away (pagehide, sign-out): nothing stays
// usable behind the console, and an abandoned one dies at its expiry (docs/decisions.md, issue 31).

const CREDENTIAL_MINUTES = 15;
export const CONSOLE_TOKEN_NAME = "console: try a tool";

type Held = { readonly tokenId: string; readonly value: string; readonly expires: number };
const held = new Map<string, Held>();

const revoke = (serverId: string, h: Held) => {
  held.delete(serverId);
  // keepalive: the request outlives the page that is being closed.
  void fetch(
    `${window.location.origin}/servers/${encodeURIComponent(serverId)}/tokens/${encodeURIComponent(h.tokenId)}`,
    { method: "DELETE", headers: { Authorization: `Bearer ${currentToken()}` }, keepalive: true },
  ).catch(() => undefined);
};

/** Revokes every console credential this page holds. */
export const releaseConsoleCredentials = (): void => {
  for (const [serverId, h] of [...held]) revoke(serverId, h);
};

window.addEventListener("pagehide", releaseConsoleCredentials);

/** A short-lived server token for `serverId`, minted on first use and reused while it has a minute left. */
export const consoleCredential = async (
  serverId: string,
): Promise<{ readonly ok: true; readonly value: string } | { readonly ok: false; readonly problem: Problem }> => {
  const h = held.get(serverId);
  if (h !== undefined && h.expires - Date.now() > 60_000) return { ok: true, value: h.value };
  if (h !== undefined) revoke(serverId, h);
  const expires = Date.now() + CREDENTIAL_MINUTES * 60_000;
  const out = await run(
    api.POST("/servers/{id}/tokens", {
      params: { path: { id: serverId } },
      body: { token: { name: CONSOLE_TOKEN_NAME, expiresAt: new Date(expires).toISOString() } },
    }),
  );
  if (!out.ok) return { ok: false, problem: out.problem };
  const value = out.data.token.value ?? "";
  held.set(serverId, { tokenId: out.data.token.id, value, expires });
  return { ok: true, value };
};
