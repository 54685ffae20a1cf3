import { Effect, Either, Schema } from "effect";
import { type InvalidArgument, NotFound } from "../errors/domain-errors.js";
import type { Actor } from "../tenancy/actor.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { read, visibleProvider } from "../use-case/use-case-kit.js";
import { invalid, parseProblems } from "../validation/decode-write.js";
import { AnyJsonValue, JsonObject } from "../validation/text.js";
import { markDecoded, validateIds, validateInput } from "../validation/validate-input.js";
import { DEFAULT_MAX_RESULT_TOKENS, MaxResultTokens, ResponseFilter } from "./response-filter.js";
import { ResponseShaping } from "./response-shaping-port.js";

// `POST /providers/{id}/tools/{toolID}/shape-preview` (docs/api-rules.md §19): a sample answer shaped as a
// call of the tool would shape it, with token counts before and after; nothing is stored.

/** The body of a shape preview (no envelope, as the contract writes it). */
export const ShapePreviewBody = Schema.Struct({
  sample: AnyJsonValue.annotations({ description: "an answer of the upstream, as JSON" }),
  responseFilter: Schema.optionalWith(
    Schema.NullOr(ResponseFilter).annotations({
      description: "the filter to try; absent: the tool's own; null: none",
    }),
    { exact: true },
  ),
  maxResultTokens: Schema.optionalWith(MaxResultTokens, { exact: true }),
}).annotations({ identifier: "ShapePreviewRequest" });
export type ShapePreviewBody = typeof ShapePreviewBody.Type;

/** The answer of a shape preview. */
export const ShapePreviewResult = Schema.Struct({
  result: AnyJsonValue.annotations({ description: "the shaped sample (what structuredContent would hold, unwrapped)" }),
  tokens: Schema.Struct({
    before: Schema.Number.annotations({ jsonSchema: { type: "integer" } }),
    after: Schema.Number.annotations({ jsonSchema: { type: "integer" } }),
  }).annotations({ description: "o200k_base tokens of the sample's JSON text and of the result's" }),
  outputSchema: JsonObject.annotations({ description: "the outputSchema the tool would declare with this filter" }),
  cut: Schema.String.annotations({
    description: 'what the cut to maxResultTokens left out and how to narrow the request; "" when nothing was cut',
  }),
}).annotations({ identifier: "ShapePreview" });
export type ShapePreviewResult = typeof ShapePreviewResult.Type;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Decodes a shape-preview body: `sample` required, unknown fields refused, problems located. */
export const decodeShapePreviewBody = (body: unknown): Effect.Effect<ShapePreviewBody, InvalidArgument> => {
  if (!isPlainObject(body)) return Effect.fail(invalid([{ path: "", message: "must be a JSON object" }]));
  const input = Object.fromEntries(Object.entries(body));
  if (!("sample" in input)) return Effect.fail(invalid([{ path: "sample", message: "is required" }]));
  const decoded = Schema.decodeUnknownEither(ShapePreviewBody, { errors: "all", onExcessProperty: "error" })(input);
  return Either.isLeft(decoded)
    ? Effect.fail(invalid(parseProblems("", decoded.left)))
    : Effect.succeed(markDecoded(decoded.right));
};

/** Input of `previewToolShape`. */
export interface PreviewToolShapeInput {
  readonly providerId: string;
  readonly toolId: string;
  readonly preview: ShapePreviewBody;
}

/** A sample answer of a tool the actor can see, shaped by its (or the given) filter and cut to a token budget. */
export const previewToolShape = defineUseCase("previewToolShape", (actor: Actor, input: PreviewToolShapeInput) =>
  Effect.gen(function* () {
    yield* validateIds([
      ["id", input.providerId],
      ["toolID", input.toolId],
    ]);
    const preview = yield* validateInput("", ShapePreviewBody, input.preview);
    if (preview.sample === undefined) return yield* Effect.fail(invalid([{ path: "sample", message: "is required" }]));
    const tool = yield* read((tx) =>
      Effect.gen(function* () {
        yield* visibleProvider(tx, actor, input.providerId);
        const row = yield* tx.findTool(input.toolId);
        return row !== undefined && row.providerId === input.providerId
          ? row
          : yield* new NotFound({ kind: "tool", id: input.toolId });
      }),
    );
    const shaping = yield* ResponseShaping;
    return yield* shaping.preview({
      tool,
      sample: preview.sample,
      responseFilter: preview.responseFilter === undefined ? tool.responseFilter : preview.responseFilter,
      maxResultTokens: preview.maxResultTokens ?? DEFAULT_MAX_RESULT_TOKENS,
    });
  }),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const SHAPE_PREVIEW_USE_CASES = { previewToolShape } as const;
