import { Effect } from "effect";
import type { Operations } from "./operations.js";
import { childOperations, childStatements } from "./provider-children.js";

export const toolOperations: Operations<
  "insertTool" | "updateTool" | "deleteTool" | "findTool" | "listTools" | "findTools"
> = (tables) => {
  const statements = childStatements(tables.tools, "t");
  const findMany = `select ${tables.tools.json("t")} as r from tools t where t.id = any($1::text[])`;
  return (ctx) => {
    const tools = childOperations(ctx, "tool", statements);
    return {
      insertTool: tools.insert,
      updateTool: tools.update,
      deleteTool: tools.delete,
      findTool: tools.find,
      listTools: tools.list,
      findTools: (ids) => (ids.length === 0 ? Effect.succeed([]) : ctx.many(findMany, [ids], tables.tools.decode)),
    };
  };
};
