import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
import type { Router } from "@koa/router";

// GET /console (the web console's page) and GET /console/{asset} (its script and style sheet), built by
// apps/console (Vite) into its dist/ and served from this process: no CDN, works offline. The page runs under
// a strict Content-Security-Policy like /docs: scripts, styles and fetches from this origin only (plus the
// token endpoint of the configured authorization server, for the authorization code flow), no inline
// script, no framing. The console's settings travel in a <meta> element, never an inline script. Two
// libraries insert <style> elements at run time (CodeMirror's editor theme, react-aria's touch-action
// rule); they carry a nonce fresh for every page answer (read from <meta property="csp-nonce">), so
// style-src admits exactly those and no inline style attribute or injected style sheet.

/** The console's sign-in settings: the authorization server's endpoints and the console's public client. */
export interface ConsoleOAuth {
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly scope: string;
}

/**
 * The policy of the /console page and its files; `connect` adds origins the page may fetch from, `nonce`
 * (the page only) admits the style elements carrying it.
 */
export const consoleCsp = (connect: ReadonlyArray<string> = [], nonce?: string): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    nonce === undefined ? "style-src 'self'" : `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${["'self'", ...connect].join(" ")}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

/** The nonce's place in the built page (apps/console/index.html). */
const NONCE_META = '<meta property="csp-nonce" nonce="" />';

/** The console's dist/ folder (its package is a dependency of this app, built before it by turbo). */
const consoleDist = (): string =>
  join(dirname(createRequire(import.meta.url).resolve("@mcpsm/console/package.json")), "dist");

const escapeAttribute = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Reads the built page and its files once: the page with its settings filled in, and the assets by name. */
const loadConsole = (oauth: ConsoleOAuth | undefined) => {
  const dist = consoleDist();
  if (!existsSync(join(dist, "index.html"))) return undefined;
  const settings = escapeAttribute(JSON.stringify(oauth === undefined ? {} : { oauth }));
  const page = readFileSync(join(dist, "index.html"), "utf8").replace(
    '<meta name="mcpsm-console" content="" />',
    `<meta name="mcpsm-console" content="${settings}" />`,
  );
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dist)) {
    const type = TYPES[extname(name)];
    if (type !== undefined) assets.set(name, { type, body: readFileSync(join(dist, name)) });
  }
  return { page, assets };
};

/** Mounts GET /console and GET /console/:asset (every file of the build; hashed names, cached for a year). */
export const mountConsole = (router: Router, oauth: ConsoleOAuth | undefined): void => {
  const connect = oauth === undefined ? [] : [new URL(oauth.tokenEndpoint).origin];
  const csp = consoleCsp(connect);
  let built: ReturnType<typeof loadConsole> | null = null;
  const load = () => {
    built ??= loadConsole(oauth) ?? null;
    return built;
  };
  router.get("/console", (ctx) => {
    const console = load();
    if (console === null) return; // not built: 404 in the problem shape
    const nonce = randomBytes(18).toString("base64");
    ctx.set("Content-Security-Policy", consoleCsp(connect, nonce));
    ctx.type = "text/html; charset=utf-8";
    ctx.body = console.page.replace(NONCE_META, `<meta property="csp-nonce" nonce="${nonce}" />`);
  });
  router.get("/console/:asset", (ctx) => {
    const asset = load()?.assets.get(ctx.params.asset ?? "");
    if (asset === undefined) return;
    ctx.set("Content-Security-Policy", csp);
    ctx.set("Cache-Control", "public, max-age=31536000, immutable");
    ctx.type = asset.type;
    ctx.body = asset.body;
  });
};
