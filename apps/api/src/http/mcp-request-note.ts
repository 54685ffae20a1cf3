import { AsyncLocalStorage } from "node:async_hooks";
import type { McpInstrumentation, UpstreamObserver } from "@mcpsm/mcp-runtime";

// What an MCP request's log line says beyond `POST /mcp/<id> 200`: the JSON-RPC method and the tool. The MCP
// runtime reports each operation it answers to its instrumentation; this one notes the operation on the
// request it belongs to (an AsyncLocalStorage set by the request frame around `/mcp/*` requests only).

/** The MCP operation of one request, filled in as the runtime answers it. */
export interface McpRequestNote {
  method?: string;
  tool?: string | undefined;
}

const notes = new AsyncLocalStorage<McpRequestNote>();

/** Runs `next` with a note for the MCP operation it answers; resolves to that note. */
export const withMcpRequestNote = async (next: () => Promise<unknown>): Promise<McpRequestNote> => {
  const note: McpRequestNote = {};
  await notes.run(note, next);
  return note;
};

const unobserved: UpstreamObserver = (_exchange, run) => run([]);

/** Notes each operation on its request (the first one: a batch is logged by its first method). */
export const mcpRequestNoting: McpInstrumentation = {
  operation: (operation, run) => {
    const note = notes.getStore();
    if (note !== undefined && note.method === undefined) {
      note.method = operation.method;
      note.tool = operation.toolName;
    }
    return run(unobserved);
  },
};
