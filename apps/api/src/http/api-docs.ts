import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Router } from "@koa/router";
import { type DocumentOptions, openApiDocument } from "@mcpsm/openapi";

// GET /openapi.json (the generated document) and GET /docs (Swagger UI from the swagger-ui-dist package,
// served from this process: no CDN, works offline). The page runs under a strict Content-Security-Policy:
// scripts, styles and fetches from this origin only, no inline script or style element, no framing.

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** The policy of the /docs page and its files. */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MCP Server Management Service · API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** Starts Swagger UI on the document; no outside validator, OAuth with PKCE through /docs/oauth2-redirect.html. */
const INIT = `"use strict";
window.addEventListener("load", function () {
  var ui = window.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    oauth2RedirectUrl: window.location.origin + "/docs/oauth2-redirect.html"
  });
  ui.initOAuth({ usePkceWithAuthorizationCodeGrant: true });
  window.ui = ui;
});
`;

interface Asset {
  readonly type: string;
  readonly body: string | Buffer;
}

/** The files of the page, read once (about 2 MB). */
const loadAssets = (): ReadonlyMap<string, Asset> => {
  const fromDist = (name: string, type: string): [string, Asset] => [
    name,
    { type, body: readFileSync(join(swaggerUiDir, name)) },
  ];
  return new Map<string, Asset>([
    fromDist("swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
    fromDist("swagger-ui.css", "text/css; charset=utf-8"),
    fromDist("oauth2-redirect.html", "text/html; charset=utf-8"),
    fromDist("oauth2-redirect.js", "text/javascript; charset=utf-8"),
    fromDist("favicon-32x32.png", "image/png"),
    ["init.js", { type: "text/javascript; charset=utf-8", body: INIT }],
  ]);
};

/** Mounts GET /openapi.json and GET /docs (with its files under /docs/). */
export const mountApiDocs = (router: Router, options: DocumentOptions): void => {
  const document = JSON.stringify(openApiDocument(options));
  let assets: ReadonlyMap<string, Asset> | undefined;
  router.get("/openapi.json", (ctx) => {
    ctx.type = "application/json";
    ctx.body = document;
  });
  router.get("/docs", (ctx) => {
    ctx.set("Content-Security-Policy", DOCS_CSP);
    ctx.type = "text/html; charset=utf-8";
    ctx.body = PAGE;
  });
  router.get("/docs/:asset", (ctx) => {
    assets ??= loadAssets();
    const asset = assets.get(ctx.params.asset ?? "");
    if (asset === undefined) return; // 404 in the problem shape
    ctx.set("Content-Security-Policy", DOCS_CSP);
    ctx.set("Cache-Control", "public, max-age=3600");
    ctx.type = asset.type;
    ctx.body = asset.body;
  });
};
