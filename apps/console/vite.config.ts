import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Built into dist/ and served by apps/api under /console: every file flat under /console/ (the service
// serves one path segment, GET /console/{asset}), no inline script (the page runs under a strict CSP) and
// no module-preload polyfill (it would be an inline script).
// `pnpm --filter @mcpsm/console exec vite` serves the console with hot reload at
// http://127.0.0.1:5173/console/ and forwards the API and MCP paths to a running service (MCPSM_URL,
// default http://127.0.0.1:8080), so the page still talks to its own origin.
const service = process.env.MCPSM_URL ?? "http://127.0.0.1:8080";
const forwarded = ["/providers", "/servers", "/variables", "/audit-events", "/mcp", "/openapi.json"];

export default defineConfig({
  base: "/console/",
  plugins: [react()],
  server: { host: "127.0.0.1", proxy: Object.fromEntries(forwarded.map((path) => [path, service])) },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "",
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    // The o200k_base tokenizer (Try a tool's token count, loaded on the first call) is one 2 MB chunk.
    chunkSizeWarningLimit: 2100,
  },
});
