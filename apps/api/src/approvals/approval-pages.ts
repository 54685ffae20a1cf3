import { randomBytes, timingSafeEqual } from "node:crypto";
import type Router from "@koa/router";
import { approvalForPage, decideOnPage } from "@mcpsm/domain/mcp";
import { AuditContext } from "@mcpsm/domain/use-cases";
import { Effect, Exit } from "effect";
import type { Context } from "koa";
import type { DecidedApproval } from "../operations/approval-metrics.js";

// docs/api-rules.md §20: the page a caller's client opens to have a person approve or deny one tool call.
// The unguessable id in its path is the capability (as §13's consent pages). The form is safe against CSRF (a
// per-page token in a SameSite=Strict cookie that the form must echo, and an Origin that must be ours) and
// against clickjacking (never framed); it shows server, tool and arguments with secret values masked.

type Runner = { readonly runPromiseExit: <A, E>(effect: Effect.Effect<A, E, never>) => Promise<Exit.Exit<A, E>> };

const HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}
pre{background:#f4f4f4;padding:1rem;overflow:auto}button{font:inherit;padding:.4rem 1.2rem;margin-right:1rem}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>
`;

const answer = (ctx: Context, status: number, title: string, body: string) => {
  ctx.status = status;
  ctx.set({ ...HEADERS });
  ctx.body = page(title, body);
};

const COOKIE = "approval_csrf";

/** Mounts `GET /approvals/{id}` (the page) and `POST /approvals/{id}` (its form) on `router`. */
export const mountApprovalPages = (
  router: Router,
  runtime: Runner,
  onDecided: (approval: DecidedApproval) => void = () => {},
): void => {
  router.get("/approvals/:id", async (ctx) => {
    const id = ctx.params.id ?? "";
    const found = await runtime.runPromiseExit(approvalForPage(id) as Effect.Effect<unknown, unknown, never>);
    const row = Exit.isSuccess(found)
      ? (found.value as import("@mcpsm/domain/mcp").ApprovalRow | undefined)
      : undefined;
    if (row === undefined || row.expiresAt.getTime() <= Date.now())
      return answer(ctx, 404, "Approval not found", "<p>This approval does not exist or has expired.</p>");
    if (row.status !== "PENDING")
      return answer(ctx, 409, "Already decided", "<p>This call was already approved or denied.</p>");
    const token = randomBytes(24).toString("base64url");
    ctx.cookies.set(COOKIE, token, { httpOnly: true, sameSite: "strict", path: `/approvals/${id}`, overwrite: true });
    answer(
      ctx,
      200,
      "Approve this tool call?",
      `<p>Server <code>${escapeHtml(row.serverId)}</code> asks to run the tool <strong>${escapeHtml(row.toolName)}</strong>
for caller <code>${escapeHtml(row.principal)}</code> with these arguments:</p>
<pre>${escapeHtml(row.argumentsShown)}</pre>
<form method="post" action="/approvals/${escapeHtml(id)}">
<input type="hidden" name="csrf" value="${token}">
<button name="decision" value="APPROVE">Approve</button><button name="decision" value="DENY">Deny</button>
</form><p>The approval is for this one call with exactly these arguments, once, until ${escapeHtml(row.expiresAt.toISOString())}.</p>`,
    );
  });

  router.post("/approvals/:id", async (ctx) => {
    const id = ctx.params.id ?? "";
    const origin = ctx.get("Origin");
    if (origin !== "" && origin !== ctx.origin)
      return answer(ctx, 403, "Refused", "<p>The form was sent from another site.</p>");
    const raw = await new Promise<string>((resolve, reject) => {
      let text = "";
      ctx.req.setEncoding("utf8");
      ctx.req.on("data", (chunk: string) => {
        text += chunk;
        if (text.length > 4096) reject(new Error("form too large"));
      });
      ctx.req.on("end", () => resolve(text));
      ctx.req.on("error", reject);
    }).catch(() => undefined);
    const form = new URLSearchParams(raw ?? "");
    const sent = Buffer.from(form.get("csrf") ?? "");
    const kept = Buffer.from(ctx.cookies.get(COOKIE) ?? "");
    if (sent.length === 0 || sent.length !== kept.length || !timingSafeEqual(sent, kept))
      return answer(ctx, 403, "Refused", "<p>Open the approval link again and decide there.</p>");
    const decision = form.get("decision");
    if (decision !== "APPROVE" && decision !== "DENY")
      return answer(ctx, 400, "Refused", "<p>Choose Approve or Deny.</p>");
    const found = await runtime.runPromiseExit(approvalForPage(id) as Effect.Effect<unknown, unknown, never>);
    const row = Exit.isSuccess(found)
      ? (found.value as import("@mcpsm/domain/mcp").ApprovalRow | undefined)
      : undefined;
    if (row === undefined) return answer(ctx, 404, "Approval not found", "<p>This approval does not exist.</p>");
    const decided = await runtime.runPromiseExit(
      decideOnPage(id, decision).pipe(
        Effect.provideService(AuditContext, {
          tenant: row.tenant,
          sub: "approval page",
          clientId: "",
          requestId: String(ctx.state.requestId ?? ""),
          operation: "decideApproval",
        }),
      ) as Effect.Effect<unknown, unknown, never>,
    );
    ctx.cookies.set(COOKIE, null, { path: `/approvals/${id}` });
    if (Exit.isFailure(decided))
      return answer(ctx, 409, "Not decided", "<p>This approval expired or was already decided.</p>");
    onDecided(decided.value as DecidedApproval);
    answer(
      ctx,
      200,
      decision === "APPROVE" ? "Approved" : "Denied",
      `<p>${decision === "APPROVE" ? "The call may run once: return to your client and call the tool again." : "The call will not run."}</p>`,
    );
  });
};
