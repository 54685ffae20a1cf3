import type { Operations } from "./operations.js";
import { childOperations, childStatements } from "./provider-children.js";

export const toolOperations: Operations<"insertTool" | "updateTool" | "deleteTool" | "findTool" | "listTools"> = (
  tables,
) => {
  const statements = childStatements(tables.tools, "t");
  return (ctx) => {
    const tools = childOperations(ctx, "tool", statements);
    return {
      insertTool: tools.insert,
      updateTool: tools.update,
      deleteTool: tools.delete,
      findTool: tools.find,
      listTools: tools.list,
    };
  };
};
