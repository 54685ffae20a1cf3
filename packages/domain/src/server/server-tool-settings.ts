import { Effect } from "effect";
import type { FieldProblem } from "../errors/domain-errors.js";
import { NotFound } from "../errors/domain-errors.js";
import { ARGUMENT_PARTS, partSchema } from "../mcp/tool-arguments.js";
import type { ServerGraph, ToolRow } from "../storage/rows.js";
import type { Actor } from "../tenancy/actor.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { lockServer, now, read, transact } from "../use-case/use-case-kit.js";
import { invalid } from "../validation/decode-write.js";
import { validateIds, validateInput } from "../validation/validate-input.js";
import { checkDistinctToolNames } from "./server-composition.js";
import { toServerToolRecord } from "./server-record.js";
import { ownedServerGraph, saveServer } from "./server-use-cases.js";
import { normalFixedArgs, toolSettingsOf, withToolSettings } from "./tool-settings-rows.js";
import { type ServerToolSettings, ServerToolSettingsPatch } from "./tool-settings-schema.js";

// GET|PATCH /servers/{id}/tools/{toolID} (docs/api-rules.md §20): one chosen tool with its settings in the server.

/** Input of `getServerTool`. */
export interface GetServerToolInput {
  readonly serverId: string;
  readonly toolId: string;
}

/** Input of `updateServerTool`: the settings fields to change. */
export interface UpdateServerToolInput {
  readonly serverId: string;
  readonly toolId: string;
  readonly tool: ServerToolSettingsPatch;
}

/** The problems of pinned arguments: each must name a property of its part's schema. */
const fixedArgsProblems = (tool: ToolRow, settings: ServerToolSettings, root: string): Array<FieldProblem> =>
  ARGUMENT_PARTS.flatMap((part) => {
    const pinned = settings.fixedArgs[part];
    if (pinned === undefined) return [];
    const properties = partSchema(tool, part)?.properties;
    return Object.keys(pinned)
      .filter((name) => typeof properties !== "object" || properties === null || !Object.hasOwn(properties, name))
      .map((name) => ({
        path: `${root}.fixedArgs.${part}.${name}`,
        message: `is not an argument of tool '${tool.name}' (${part})`,
      }));
  });

/** `current` changed by `patch` and checked against the tool; 400 naming every problem. */
export const patchedToolSettings = (
  tool: ToolRow,
  current: ServerToolSettings,
  patch: ServerToolSettingsPatch,
  root: string,
) =>
  Effect.gen(function* () {
    const settings: ServerToolSettings = {
      alias: patch.alias ?? current.alias,
      description: patch.description ?? current.description,
      fixedArgs: normalFixedArgs(patch.fixedArgs ?? current.fixedArgs),
      approval: patch.approval ?? current.approval,
    };
    const problems = fixedArgsProblems(tool, settings, root);
    if (problems.length > 0) return yield* invalid(problems);
    return settings;
  });

/** The chosen tool `toolId` of a server graph, or 404. */
const chosenTool = (graph: ServerGraph, toolId: string) => {
  const chosen = graph.server.providers.some((link) => link.toolIds.includes(toolId));
  const tool = chosen ? graph.tools.find((row) => row.id === toolId) : undefined;
  return tool === undefined ? Effect.fail(new NotFound({ kind: "tool", id: toolId })) : Effect.succeed(tool);
};

/** One chosen tool of a server with its settings there. */
export const getServerTool = defineUseCase(
  "getServerTool",
  (actor: Actor, { serverId: id, toolId }: GetServerToolInput) =>
    Effect.gen(function* () {
      yield* validateIds([
        ["id", id],
        ["toolID", toolId],
      ]);
      return yield* read((tx) =>
        Effect.gen(function* () {
          const graph = yield* ownedServerGraph(tx, actor, id);
          const tool = yield* chosenTool(graph, toolId);
          return toServerToolRecord(tool, toolSettingsOf(graph.server, toolId));
        }),
      );
    }),
);

/** Changes the settings of one chosen tool in a server (a new server version). */
export const updateServerTool = defineUseCase(
  "updateServerTool",
  (actor: Actor, { serverId: id, toolId, tool: given }: UpdateServerToolInput) =>
    Effect.gen(function* () {
      yield* validateIds([
        ["id", id],
        ["toolID", toolId],
      ]);
      const patch = yield* validateInput("tool", ServerToolSettingsPatch, given);
      return yield* transact((tx) =>
        Effect.gen(function* () {
          yield* lockServer(tx, id);
          const graph = yield* ownedServerGraph(tx, actor, id);
          const stored = graph.server;
          const tool = yield* chosenTool(graph, toolId);
          const settings = yield* patchedToolSettings(tool, toolSettingsOf(stored, toolId), patch, "tool");
          const toolSettings = withToolSettings(stored, toolId, settings);
          yield* checkDistinctToolNames(graph.tools, toolSettings);
          if (JSON.stringify(toolSettings) !== JSON.stringify(stored.toolSettings ?? []))
            yield* saveServer(
              tx,
              stored,
              { ...stored, toolSettings, version: stored.version + 1, updatedAt: yield* now },
              false,
            );
          return toServerToolRecord(tool, settings);
        }),
      );
    }),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const SERVER_TOOL_SETTINGS_USE_CASES = { getServerTool, updateServerTool } as const;
