import type * as I from "@mcpsm/domain/openapi-import";
import { Ajv2020 } from "ajv/dist/2020.js";

export const doc = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  openapi: "3.0.3",
  info: { title: "Example API", version: "1" },
  servers: [{ url: "https://api.example.com" }],
  paths,
  ...extra,
});

export const toolAt = (result: { result: I.ImportResult }, method: string, path: string) => {
  const tool = result.result.provider.tools.find((t) => t.method === method && t.path === path);
  if (tool === undefined) throw new Error(`no tool ${method} ${path}`);
  return tool;
};

export const validator = (schema: Record<string, unknown>) => new Ajv2020({ strict: false }).compile(schema);

/** A schema graph whose inlined form doubles at each level: 2^20 copies of Leaf once inlined. */
export const doubling = (levels: number) => {
  const schemas: Record<string, unknown> = {
    L0: { type: "object", properties: { leaf: { type: "string", description: "x".repeat(200) } } },
  };
  for (let i = 1; i <= levels; i++)
    schemas[`L${i}`] = {
      type: "object",
      properties: {
        left: { $ref: `#/components/schemas/L${i - 1}` },
        right: { $ref: `#/components/schemas/L${i - 1}` },
      },
    };
  return schemas;
};
