// The hostile OpenAPI descriptions of issue 24, each a few kilobytes, shared by the HTTP tests
// (hostile-import.test.ts) and the bench (bench/hostile-import.mjs, which loads this file with Node's own
// type stripping: keep it to erasable TypeScript and no imports).

const operation = 'paths:\n  /x:\n    get:\n      operationId: getX\n      responses: {"200": {description: ok}}\n';
const head = (version: string) =>
  `${version}\ninfo: {title: Hostile, version: "1"}\nservers: [{url: "https://api.example.com"}]\n${operation}`;

/**
 * A `$ref` chain S1..S<levels>, each an object of ten properties referring to the level below, and one
 * operation whose body is the top: inlined, it is 10^levels copies of S0 (whose description is `salt`).
 */
export const refChain = (levels: number, salt: string): Record<string, unknown> => {
  const schemas: Record<string, unknown> = {
    S0: { type: "string", description: `${salt}: a leaf of the chain, long enough to weigh ${"x".repeat(60)}` },
  };
  for (let i = 1; i <= levels; i++)
    schemas[`S${i}`] = {
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: 10 }, (_, p) => [`p${p}`, { $ref: `#/components/schemas/S${i - 1}` }]),
      ),
    };
  return {
    openapi: "3.0.3",
    info: { title: "Chain", version: "1" },
    servers: [{ url: "https://api.example.com" }],
    paths: {
      "/x": {
        post: {
          operationId: "postX",
          requestBody: { content: { "application/json": { schema: { $ref: `#/components/schemas/S${levels}` } } } },
          responses: { "200": { description: "ok" } },
        },
      },
    },
    components: { schemas },
  };
};

/** YAML with `keys` extension keys under `x-pad`, the last one a duplicate of the first. */
export const manyKeys = (keys: number): string => {
  const lines = Array.from({ length: keys }, (_, i) => `  k${i}: v`);
  lines.push("  k0: again");
  return `${head("openapi: 3.0.3")}x-pad:\n${lines.join("\n")}\n`;
};

/** A YAML alias bomb: `levels` levels of ten aliases to the level below, the first ten copies of `leaf`. */
const aliasBomb = (version: string, levels: number, leaf: string): string => {
  const lines = [`x-l0: &l0 [${Array(10).fill(leaf).join(", ")}]`];
  for (let i = 1; i < levels; i++)
    lines.push(
      `x-l${i}: &l${i} [${Array(10)
        .fill(`*l${i - 1}`)
        .join(", ")}]`,
    );
  return `${head(version)}${lines.join("\n")}\n`;
};

/** Swagger 2.0 with an alias bomb of six levels over empty objects. */
export const swaggerAliasBomb = (): string => aliasBomb('swagger: "2.0"', 6, "{}");

/** OpenAPI 3 with an alias bomb of eight levels over empty collections. */
export const emptyCollectionsBomb = (): string => aliasBomb("openapi: 3.0.3", 8, "[]");

/** A YAML flow list of `items` items. */
export const flowList = (items: number): string =>
  `${head("openapi: 3.0.3")}x-list: [${Array(items).fill("a").join(", ")}]\n`;
