/**
 * Tests resolve the workspace's packages to their TypeScript sources (the `@mcpsm/source` export condition
 * of each package.json; a name of our own, since some published packages export TypeScript under a plain
 * `source`), so an edit to a dependency is tested without rebuilding it. The service itself, started from
 * `dist/`, and Node outside vitest ignore the condition and keep using the build. The other conditions are
 * Vite's defaults for server code (which an explicit list replaces).
 */
const conditions = ["@mcpsm/source", "module", "node", "development|production"];

export const sourceConditions = { resolve: { conditions }, ssr: { resolve: { conditions } } };
