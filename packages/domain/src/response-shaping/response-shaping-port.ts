import { Context, Effect, Layer } from "effect";
import { type FieldProblem, InvalidArgument } from "../errors/domain-errors.js";
import type { ToolRow } from "../storage/rows.js";
import type { JsonObject } from "../validation/text.js";
import type { ResponseFilter } from "./response-filter.js";

/** What `POST /providers/{id}/tools/{toolID}/shape-preview` shapes: a sample answer of a tool. */
export interface ShapePreviewRequest {
  readonly tool: ToolRow;
  readonly sample: unknown;
  /** The filter to try (the tool's own unless the request names one; null: none). */
  readonly responseFilter: ResponseFilter | null;
  readonly maxResultTokens: number;
}

/** The shaped sample, its token counts (o200k_base) and the `outputSchema` the tool would declare. */
export interface ShapePreview {
  readonly result: unknown;
  readonly tokens: { readonly before: number; readonly after: number };
  readonly outputSchema: JsonObject;
  /** What the cut to `maxResultTokens` left out and how to narrow the request; "" when nothing was cut. */
  readonly cut: string;
}

/**
 * The port through which the use cases check and try response filters (docs/api-rules.md §19); the engines
 * (JMESPath, jq, the tokenizer) are not the domain's. `filterProblems` locates what is wrong under `path`
 * (`<path>.expression`, `<path>.language`); `preview` fails with InvalidArgument (at `responseFilter...`) when
 * the filter does not compile or fails on the sample.
 */
export class ResponseShaping extends Context.Tag("@mcpsm/domain/ResponseShaping")<
  ResponseShaping,
  {
    readonly filterProblems: (filter: ResponseFilter, path: string) => Effect.Effect<ReadonlyArray<FieldProblem>>;
    readonly preview: (request: ShapePreviewRequest) => Effect.Effect<ShapePreview, InvalidArgument>;
  }
>() {}

/**
 * The port when no engine was given (`createManagement` without `responseShaping`): a write carrying a
 * filter is refused, since it could not be checked, and nothing can be previewed.
 */
export const NO_RESPONSE_SHAPING: typeof ResponseShaping.Service = {
  filterProblems: (_filter, path) =>
    Effect.succeed([{ path, message: "response filters are not available: the service was started without them" }]),
  preview: () =>
    Effect.fail(
      new InvalidArgument({
        detail: "response filters are not available",
        errors: [{ path: "responseFilter", message: "response filters are not available" }],
      }),
    ),
};

/** The port as a layer (default: `NO_RESPONSE_SHAPING`). */
export const responseShapingLayer = (service: typeof ResponseShaping.Service = NO_RESPONSE_SHAPING) =>
  Layer.succeed(ResponseShaping, service);

/** Problems of an optional filter at `path` (none when absent or null). */
export const responseFilterProblems = (filter: ResponseFilter | null | undefined, path: string) =>
  filter === undefined || filter === null
    ? Effect.succeed<ReadonlyArray<FieldProblem>>([])
    : Effect.flatMap(ResponseShaping, (shaping) => shaping.filterProblems(filter, path));
