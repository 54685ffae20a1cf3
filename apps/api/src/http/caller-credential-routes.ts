import type { Router } from "@koa/router";
import type { CredentialRequest, PageAnswer } from "@mcpsm/caller-credentials";
import type { Context } from "koa";

// docs/api-rules.md §23: the public form of a per-caller value, `GET|POST /credentials/{id}`, answered without a
// management token (the id is the capability). The POST body is a small urlencoded form, read here.

/** The two pages (`@mcpsm/caller-credentials`). */
export interface CallerCredentialPages {
  readonly show: (request: CredentialRequest) => Promise<PageAnswer>;
  readonly submit: (request: CredentialRequest, body: URLSearchParams) => Promise<PageAnswer>;
}

/** A value is at most 64 KiB; the form's body with its CSRF token and encoding stays well under this. */
const MAX_FORM_BYTES = 256 * 1024;

const requestOf = (ctx: Context): CredentialRequest => ({
  formId: String(ctx.params?.id ?? ""),
  cookie: ctx.get("Cookie") || undefined,
  origin: ctx.get("Origin") || undefined,
  fetchSite: ctx.get("Sec-Fetch-Site") || undefined,
  requestId: String(ctx.state.requestId ?? ""),
});

const formBody = async (ctx: Context): Promise<URLSearchParams | undefined> => {
  if (!ctx.is("application/x-www-form-urlencoded")) return undefined;
  const chunks: Array<Buffer> = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
};

const send = (ctx: Context, answer: PageAnswer) => {
  ctx.status = answer.status;
  ctx.set({ ...answer.headers });
  ctx.body = answer.body;
};

/** Mounts `GET` and `POST /credentials/:id`. */
export const mountCallerCredentials = (router: Router, pages: CallerCredentialPages): void => {
  router.get("/credentials/:id", async (ctx) => {
    ctx.state.routeTemplate = "/credentials/{id}";
    send(ctx, await pages.show(requestOf(ctx as unknown as Context)));
  });
  router.post("/credentials/:id", async (ctx) => {
    ctx.state.routeTemplate = "/credentials/{id}";
    const body = await formBody(ctx as unknown as Context);
    if (body === undefined) {
      ctx.status = 415;
      ctx.set({ "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
      ctx.body = "send the form as application/x-www-form-urlencoded, at most 256 KiB";
      return;
    }
    send(ctx, await pages.submit(requestOf(ctx as unknown as Context), body));
  });
};
