import type * as I from "@mcpsm/domain/openapi-import";
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "vitest";

export const doc30 = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  openapi: "3.0.3",
  info: { title: "Example API", version: "1", description: "An example." },
  servers: [{ url: "https://{region}.example.com/v1", variables: { region: { default: "eu" } } }],
  paths,
  ...extra,
});

export const toolNamed = (result: { result: I.ImportResult }, name: string) => {
  const tool = result.result.provider.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
};

export const compiles = (schema: Record<string, unknown>) => {
  const ajv = new Ajv2020({ strict: false });
  expect(() => ajv.compile(schema)).not.toThrow();
};
