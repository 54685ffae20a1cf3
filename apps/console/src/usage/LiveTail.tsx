import type { components } from "@mcpsm/client";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { useEffect, useRef, useState } from "react";
import { Button } from "react-aria-components";
import { currentToken } from "../api/session.js";

type ToolCall = components["schemas"]["ToolCall"];

// The live tail of a server's calls (GET /servers/{id}/calls/stream, Server-Sent Events, docs/api-rules.md
// §24). EventSource sends no Authorization header, so the stream is read with fetch and parsed with
// eventsource-parser; a dropped stream is resumed after the last event seen (Last-Event-ID).

/** How many calls the tail keeps on screen, newest first. */
const KEEP = 200;
/** The wait before reconnecting after the stream ended or failed. */
const RETRY_MS = 3_000;

type TailState = "connecting" | "live" | "paused" | "failed";

/** New calls of `serverId` as they are recorded, newest first; `onCall` hears each one. */
export const LiveTail = (props: { readonly serverId: string; readonly onCall?: () => void }) => {
  const { serverId, onCall } = props;
  const [calls, setCalls] = useState<ReadonlyArray<ToolCall>>([]);
  const [state, setState] = useState<TailState>("connecting");
  const [paused, setPaused] = useState(false);
  const onCallRef = useRef(onCall);
  onCallRef.current = onCall;

  useEffect(() => {
    if (paused) {
      setState("paused");
      return;
    }
    const abort = new AbortController();
    let lastEventId = "";
    let retry: ReturnType<typeof setTimeout> | undefined;
    const connect = async () => {
      setState("connecting");
      try {
        const res = await fetch(`/servers/${encodeURIComponent(serverId)}/calls/stream`, {
          headers: {
            Authorization: `Bearer ${currentToken()}`,
            Accept: "text/event-stream",
            ...(lastEventId === "" ? {} : { "Last-Event-ID": lastEventId }),
          },
          signal: abort.signal,
        });
        if (!res.ok || res.body === null) throw new Error(`the service answered ${res.status}`);
        setState("live");
        const events = res.body
          .pipeThrough(new TextDecoderStream())
          .pipeThrough(new EventSourceParserStream())
          .getReader();
        for (;;) {
          const { value: event, done } = await events.read();
          if (done) break;
          if (event.event !== "call") continue;
          if (event.id !== undefined) lastEventId = event.id;
          const call = JSON.parse(event.data) as ToolCall;
          setCalls((old) => [call, ...old].slice(0, KEEP));
          onCallRef.current?.();
        }
      } catch {
        if (abort.signal.aborted) return;
        setState("failed");
      }
      if (!abort.signal.aborted) retry = setTimeout(() => void connect(), RETRY_MS);
    };
    void connect();
    return () => {
      abort.abort();
      clearTimeout(retry);
    };
  }, [serverId, paused]);

  return (
    <section aria-labelledby="tail-title" className="usage-tail">
      <div className="heading">
        <h2 id="tail-title">Live calls</h2>
        <div className="actions">
          <span className={`tail-state ${state}`} data-testid="tail-state">
            {state === "live"
              ? "live"
              : state === "paused"
                ? "paused"
                : state === "failed"
                  ? "reconnecting"
                  : "connecting"}
          </span>
          <Button className="button small" onPress={() => setPaused((p) => !p)}>
            {paused ? "Resume" : "Pause"}
          </Button>
          <Button className="button small" onPress={() => setCalls([])} isDisabled={calls.length === 0}>
            Clear
          </Button>
        </div>
      </div>
      <table className="table usage-table usage-tail-table" data-testid="live-calls">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Tool</th>
            <th scope="col">Status</th>
            <th scope="col">Latency</th>
            <th scope="col">Tokens</th>
            <th scope="col">Caller</th>
          </tr>
        </thead>
        <tbody>
          {calls.map((c) => (
            <tr key={c.id} className={c.status === "ok" ? undefined : "failed"}>
              <td>{new Date(c.at).toLocaleTimeString()}</td>
              <td className="wrap">
                <code>{c.tool}</code>
              </td>
              <td data-label="Status">
                {c.status}
                {c.upstreamStatus > 0 && <span className="muted"> · {c.upstreamStatus}</span>}
              </td>
              <td data-label="Latency">{c.latencyMs.toFixed(1)} ms</td>
              <td data-label="Tokens">
                {c.tokensAfter === null || c.tokensAfter === c.tokensBefore
                  ? c.tokensBefore
                  : `${c.tokensBefore} → ${c.tokensAfter}`}
              </td>
              <td className="wrap muted">{c.principal}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {calls.length === 0 && <p className="muted">Calls appear here about a second after they are made.</p>}
    </section>
  );
};
