import { PROMPT_OUTPUT_FIELDS, PromptCreate } from "../../src/prompt/prompt-schema.js";
import { PROVIDER_OUTPUT_FIELDS, ProviderCreate } from "../../src/provider/provider-schema.js";
import { RESOURCE_OUTPUT_FIELDS, ResourceCreate } from "../../src/resource/resource-schema.js";
import { TOOL_OUTPUT_FIELDS, ToolCreate, ToolPatch } from "../../src/tool/tool-schema.js";
import { VARIABLE_OUTPUT_FIELDS, VariableCreate } from "../../src/variable/variable-schema.js";
import { decode } from "./decode.js";

export const BASE_TOOL = { name: "getRepo", method: "GET", path: "/repos/{owner}" };

export const tool = (fields: Record<string, unknown>) =>
  decode("tool", ToolCreate, TOOL_OUTPUT_FIELDS, { tool: { ...BASE_TOOL, ...fields } });

export const toolPatch = (fields: Record<string, unknown>) =>
  decode("tool", ToolPatch, TOOL_OUTPUT_FIELDS, { tool: fields });

export const BASE_PROVIDER = { name: "GitHub", baseURL: "https://api.github.com" };

export const provider = (fields: Record<string, unknown>) =>
  decode("provider", ProviderCreate, PROVIDER_OUTPUT_FIELDS, { provider: { ...BASE_PROVIDER, ...fields } });

export const variable = (fields: Record<string, unknown>) =>
  decode("variable", VariableCreate, VARIABLE_OUTPUT_FIELDS, {
    variable: { type: "ENV", name: "API_KEY", value: "v", ...fields },
  });

export const prompt = (fields: Record<string, unknown>) =>
  decode("prompt", PromptCreate, PROMPT_OUTPUT_FIELDS, { prompt: { name: "greet", ...fields } });

export const resource = (fields: Record<string, unknown>) =>
  decode("resource", ResourceCreate, RESOURCE_OUTPUT_FIELDS, {
    resource: { name: "readme", uri: "https://example.com/readme", ...fields },
  });

export const lower = "abcdefghijklmnopqrstuvwxyz";

export const alnum = `${lower}ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789`;
