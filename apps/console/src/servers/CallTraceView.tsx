import { useEffect, useState } from "react";
import type { McpCallTrace } from "../mcp/mcp-session.js";

// What one "Try a tool" call did: status, latency, the result's size in tokens (o200k_base, the tokenizer the
// service's response shaping counts with, loaded on the first call: its ranks are 2.4 MB), the request sent
// and the answer, each content block pretty-printed when it is JSON.

const pretty = (text: string): string => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};

const resultText = (trace: McpCallTrace): string =>
  (trace.result?.content ?? []).map((c) => (c.type === "text" ? (c.text ?? "") : JSON.stringify(c))).join("\n");

export const CallTraceView = (props: { readonly trace: McpCallTrace }) => {
  const { trace } = props;
  const [tokens, setTokens] = useState<number>();
  useEffect(() => {
    let live = true;
    void import("gpt-tokenizer/encoding/o200k_base").then((m) => {
      if (live) setTokens(m.countTokens(resultText(trace)));
    });
    return () => {
      live = false;
    };
  }, [trace]);
  const failed = trace.error !== undefined || trace.result?.isError === true;
  return (
    <div className={failed ? "result problem" : "result"} role="status" aria-label="Tool result">
      <h3>{trace.error !== undefined ? "The call failed" : failed ? "The tool answered an error" : "Result"}</h3>
      <p className="call-facts">
        <span data-testid="call-status">HTTP {trace.status}</span>
        <span data-testid="call-latency">{trace.milliseconds.toFixed(0)} ms</span>
        <span data-testid="call-tokens">{tokens === undefined ? "counting tokens…" : `${tokens} tokens`}</span>
      </p>
      {trace.error !== undefined && <p>{trace.error}</p>}
      {(trace.result?.content ?? []).map((c, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: content blocks have no identity
        <pre key={i} className="config json" data-testid="tool-result">
          {c.type === "text" ? pretty(c.text ?? "") : JSON.stringify(c, null, 2)}
        </pre>
      ))}
      <details>
        <summary>Request sent</summary>
        <pre className="config json" data-testid="call-request">
          {JSON.stringify(trace.request, null, 2)}
        </pre>
      </details>
    </div>
  );
};
