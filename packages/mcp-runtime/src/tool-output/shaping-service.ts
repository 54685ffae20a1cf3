import { InvalidArgument } from "@mcpsm/domain/errors";
import type { ResponseShaping, ShapePreviewRequest } from "@mcpsm/domain/use-cases";
import { boundedTokenCount, type CompiledFilter, closeSandboxes, compileFilter } from "@mcpsm/response-shaping";
import { Effect } from "effect";
import { filteredOutputSchema } from "./filtered-schema.js";
import { shapeValue } from "./shape-answer.js";
import { outputSchemaOf } from "../wire/list-entries.js";

// The domain's ResponseShaping port (docs/api-rules.md §19) on @mcpsm/response-shaping: filters checked on
// write, and the shape preview run through the very steps a tools/call runs (`shapeValue`).

/** A filter's problems, located under `path` (`<path>.expression`, `<path>.language`). */
const filterProblems: (typeof ResponseShaping.Service)["filterProblems"] = (filter, path) =>
  Effect.promise(async () => {
    const outcome = await compileFilter(filter);
    if (outcome.ok) return [];
    const field = outcome.problem.path.endsWith(".language") ? "language" : "expression";
    return [{ path: `${path}.${field}`, message: outcome.problem.message }];
  });

const refused = (path: string, message: string) =>
  new InvalidArgument({ detail: `${path}: ${message}`, errors: [{ path, message }] });

/** The shape preview: compile, filter, cut, count. */
const preview = (request: ShapePreviewRequest) =>
  Effect.gen(function* () {
    let filter: CompiledFilter | undefined;
    if (request.responseFilter !== null) {
      const compiled = yield* Effect.promise(() =>
        compileFilter(request.responseFilter as NonNullable<typeof request.responseFilter>),
      );
      if (!compiled.ok) {
        const field = compiled.problem.path.endsWith(".language") ? "language" : "expression";
        return yield* Effect.fail(refused(`responseFilter.${field}`, compiled.problem.message));
      }
      filter = compiled.filter;
    }
    const text = JSON.stringify(request.sample) ?? "null";
    const shaped = yield* Effect.promise(() =>
      shapeValue(request.tool, filter, request.sample, text, request.maxResultTokens),
    );
    if (!shaped.ok)
      return yield* Effect.fail(
        refused(
          "responseFilter.expression",
          shaped.reason === "over-budget"
            ? `ran past its budget on this sample: ${shaped.message}`
            : `failed on this sample: ${shaped.message}`,
        ),
      );
    const { fit } = shaped;
    const tool = { ...request.tool, responseFilter: request.responseFilter };
    return {
      result: fit.value,
      // Counted whole up to 64 KiB, estimated from counted slices beyond (a whole count of 1 MB is 100+ ms).
      tokens: { before: boundedTokenCount(text).tokens, after: boundedTokenCount(fit.text).tokens },
      outputSchema:
        request.responseFilter === null
          ? ((outputSchemaOf(tool) as Record<string, unknown> | undefined) ?? {})
          : filteredOutputSchema(tool, filter),
      cut: fit.cut?.message ?? "",
    };
  });

/** The service's response shaping, as the domain's use cases take it. */
export const responseShapingService: typeof ResponseShaping.Service = { filterProblems, preview };

/** Ends the filter sandboxes' threads (at shutdown; a later filter run starts new ones). */
export const closeResponseShaping = (): Promise<void> => closeSandboxes();
