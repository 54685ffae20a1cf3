// A description that reached the service inside a JSON request body is handed on as its JSON text, unparsed:
// reading a description (parsing included) is the reader's job, which the service does off its event loop
// (docs/security.md). The body's other members are parsed and checked as in any write.

/**
 * The JSON text (UTF-8) of the value a request body held at `import.document`, not parsed yet. It is read once:
 * a reader may hand its bytes over to another thread.
 */
export class DocumentJson {
  constructor(
    /** The value's text, exactly as sent (whitespace included), alone in its buffer. */
    readonly bytes: Uint8Array,
    /** How many object members the text holds (each one `:` outside strings): fewer once parsed means a key repeats. */
    readonly members: number,
  ) {}
}
