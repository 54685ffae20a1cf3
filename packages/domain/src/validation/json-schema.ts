import { Schema } from "effect";
import { Ajv2020 } from "ajv/dist/2020.js";
import draft07 from "ajv/dist/refs/json-schema-draft-07.json" with { type: "json" };
import { JsonObject } from "./text.js";

/** Largest accepted JSON Schema, measured as its JSON text. */
export const MAX_JSON_SCHEMA_BYTES = 64 * 1024;

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
ajv.addMetaSchema(draft07);

/** Why `schema` is not a usable JSON Schema (2020-12, or draft-07 when it says so), or undefined. */
export const jsonSchemaProblem = (schema: JsonObject): string | undefined => {
  if (Buffer.byteLength(JSON.stringify(schema), "utf8") > MAX_JSON_SCHEMA_BYTES) return "must be at most 64 KiB";
  try {
    if (!ajv.validateSchema(schema)) return `is not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`;
    // Compiling also catches unresolvable $refs; the compiled function is not kept.
    ajv.compile(schema);
    ajv.removeSchema(schema);
  } catch (e) {
    return `is not a valid JSON Schema: ${e instanceof Error ? e.message : String(e)}`;
  }
  return undefined;
};

/** A JSON Schema object; `{}` means "none". */
export const JsonSchemaObject = JsonObject.pipe(
  Schema.filter((s) => (Object.keys(s).length === 0 ? true : (jsonSchemaProblem(s) ?? true)), {
    jsonSchema: {
      description: "a JSON Schema (2020-12, or draft-07 when its $schema says so) of at most 64 KiB; {} for none",
    },
  }),
  Schema.annotations({ description: "a JSON Schema; {} for none" }),
);

/** A JSON Schema of `type: "object"`; `{}` means "none". */
export const ObjectJsonSchema = JsonSchemaObject.pipe(
  Schema.filter(
    (s) => (Object.keys(s).length === 0 || s.type === "object" ? true : 'must be a JSON Schema with type "object"'),
    {
      jsonSchema: {
        description:
          'a JSON Schema with type "object" (2020-12, or draft-07 when its $schema says so) of at most 64 KiB; {} for none',
      },
    },
  ),
);
