import type { UpstreamResponse } from "@mcpsm/upstream-http";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { ProgressReport } from "./follow-in-call.js";

// docs/api-rules.md §22: an upstream answering `text/event-stream`. Each event is relayed to a caller that asked
// for progress as it arrives; the call's result is the last event when its data is JSON, else the data of every
// event collected (the body is capped at the upstream size limit, the result then cut to the server's
// `maxResultTokens` like any answer).

/** The longest event text a progress notification carries. */
const MAX_PROGRESS_MESSAGE = 1_000;

/** True for a `text/event-stream` answer. */
export const isEventStream = (response: UpstreamResponse) =>
  response.contentType.toLowerCase().startsWith("text/event-stream");

/** A chunk sink that relays each event of the stream as progress (for `UpstreamCall.onEventStream`). */
export const eventStreamRelay = (progress: ProgressReport): ((chunk: Buffer) => void) => {
  let count = 0;
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent: (event) => {
      count++;
      const text =
        event.event !== undefined && event.event !== "message" ? `${event.event}: ${event.data}` : event.data;
      progress(count, text.length > MAX_PROGRESS_MESSAGE ? `${text.slice(0, MAX_PROGRESS_MESSAGE)}…` : text);
    },
  });
  return (chunk) => parser.feed(decoder.decode(chunk, { stream: true }));
};

/** The events of a collected stream. */
const eventsOf = (body: Buffer): ReadonlyArray<EventSourceMessage> => {
  const events: Array<EventSourceMessage> = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(body.toString("utf8"));
  // A last event without its blank line still counts: the stream ended there.
  parser.feed("\n\n");
  return events;
};

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** The stream's answer as a plain upstream response: the last event if JSON, else all events' data as text. */
export const eventStreamAnswer = (response: UpstreamResponse): UpstreamResponse => {
  const events = eventsOf(response.body);
  const last = events.at(-1);
  if (last !== undefined && !response.truncated && isJson(last.data))
    return { ...response, contentType: "application/json", body: Buffer.from(last.data, "utf8") };
  return {
    ...response,
    contentType: "text/plain; charset=utf-8",
    body: Buffer.from(events.map((event) => event.data).join("\n"), "utf8"),
  };
};
