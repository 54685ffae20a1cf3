import { type FieldProblem, InvalidArgument } from "@mcpsm/domain";
import { type ApiDescription, DocumentJson } from "@mcpsm/domain/openapi-import";
import { describe } from "./describe.js";
import { parseDocumentJson } from "./document-json.js";
import { isObject, locate } from "./document-path.js";
import { scanDocument } from "./document-shape.js";
import { readDocumentValue } from "./read-text.js";

export const refuse = (problems: ReadonlyArray<FieldProblem>) => {
  const [first] = problems;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  return new InvalidArgument({
    detail: first === undefined ? "not a valid OpenAPI description" : `${first.path}: ${first.message}${more}`,
    errors: problems,
  });
};

/** The version problems of a document, and its version when it is one this reader accepts. */
const versionOf = (document: Record<string, unknown>, root: string) => {
  if (document.swagger !== undefined)
    return document.swagger === "2.0"
      ? { version: "2.0" }
      : {
          problem: {
            path: locate(root, ["swagger"]),
            message: `unsupported version '${String(document.swagger)}': Swagger 2.0, OpenAPI 3.0.x or 3.1.x are accepted`,
          },
        };
  if (document.openapi !== undefined)
    return typeof document.openapi === "string" && /^3\.[01]\.\d+(?:-[\w.]+)?$/.test(document.openapi)
      ? { version: document.openapi }
      : {
          problem: {
            path: locate(root, ["openapi"]),
            message: `unsupported version '${String(document.openapi)}': Swagger 2.0, OpenAPI 3.0.x or 3.1.x are accepted`,
          },
        };
  return {
    problem: {
      path: root,
      message: "is not an OpenAPI description: it has neither an 'openapi' nor a 'swagger' field",
    },
  };
};

const OPERATION_KEYS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * Reads a description sent as an object or as JSON / YAML text: Swagger 2.0 is converted to OpenAPI 3.0
 * (swagger2openapi), every local $ref is checked, and remote ones are reported and never fetched. Fails with
 * every problem found, each located under `root`.
 */
export const readDescription = async (document: unknown, root: string): Promise<ApiDescription> => {
  if (document instanceof DocumentJson) {
    const parsed = parseDocumentJson(document, root);
    if (!parsed.ok)
      throw parsed.detail === undefined
        ? refuse(parsed.problems)
        : new InvalidArgument({ detail: parsed.detail, errors: parsed.problems });
    // An object parsed from JSON text shares no node and was measured: it is read as it is.
    if (isObject(parsed.value)) return readDescriptionValue(parsed.value, root);
    return readDescription(parsed.value, root);
  }
  const read = readDocumentValue(document, root);
  if (!read.ok) throw refuse(read.problems);
  return readDescriptionValue(read.value, root);
};

/** Reads a description already parsed from its text (and within the size limits of read-text.ts). */
export const readDescriptionValue = async (parsed: unknown, root: string): Promise<ApiDescription> => {
  if (!isObject(parsed)) throw refuse([{ path: root, message: "is not an OpenAPI description: it must be an object" }]);
  const value = parsed;
  const problems: Array<FieldProblem> = [];
  const version = versionOf(value, root);
  if (version.problem !== undefined) throw refuse([version.problem]);
  if (!isObject(value.info))
    problems.push({ path: locate(root, ["info"]), message: "is required and must be an object" });
  if (value.paths !== undefined && !isObject(value.paths))
    problems.push({ path: locate(root, ["paths"]), message: "must be an object" });
  const refs = scanDocument(value, root);
  problems.push(...refs.problems);
  const paths = isObject(value.paths) ? value.paths : {};
  const hasOperation = Object.entries(paths).some(
    ([path, item]) =>
      !path.startsWith("x-") &&
      isObject(item) &&
      (typeof item.$ref === "string" || OPERATION_KEYS.some((m) => isObject(item[m]))),
  );
  if (!hasOperation && isObject(value.info))
    problems.push({ path: locate(root, ["paths"]), message: "holds no operation: there is nothing to import" });
  if (problems.length > 0) throw refuse(problems);

  let openapi: Record<string, unknown> = value;
  if (version.version === "2.0") {
    try {
      // Loaded here, not with the service: the converter and what it requires (a YAML parser, an HTTP
      // client) are only ever needed for a Swagger 2.0 import.
      const { default: converter } = await import("swagger2openapi");
      // A copy: the converter rewrites the object it is given. `resolve: false`: no reference is ever fetched.
      const converted = await converter.convertObj(
        structuredClone(value) as never,
        {
          patch: true,
          warnOnly: true,
          resolve: false,
        } as never,
      );
      openapi = converted.openapi as unknown as Record<string, unknown>;
    } catch (error) {
      throw refuse([
        {
          path: root,
          message: `cannot be converted from Swagger 2.0: ${error instanceof Error ? error.message : String(error)}`,
        },
      ]);
    }
  }
  return describe(openapi, version.version, root, [...refs.warnings]);
};
