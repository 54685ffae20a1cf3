// The body of an OpenAPI import holds the description at `import.document`: up to 10 MiB of JSON that only
// the reader needs. It is cut out of the body's bytes unparsed (and handed on as a DocumentJson, parsed where
// the description is read: a worker thread), so the event loop that answers every request parses only the
// envelope around it. One pass over the bytes, as the depth check makes anyway: no string of the whole body.

/** Where the value of `import.document` lies in a body, and the object members its text holds. */
export interface DocumentSpan {
  readonly start: number;
  readonly end: number;
  readonly members: number;
}

/** What one pass over a JSON body's bytes tells: its nesting depth and where `import.document` lies. */
export interface ImportBodyScan {
  readonly depth: number;
  readonly document: DocumentSpan | undefined;
}

const QUOTE = 34;
const BACKSLASH = 92;

const isKey = (bytes: Uint8Array, start: number, end: number, key: string): boolean => {
  // `start`, `end`: the key's quotes. Keys written with escapes are not recognised: the body is then parsed whole.
  if (end - start - 1 !== key.length) return false;
  for (let i = 0; i < key.length; i++) if (bytes[start + 1 + i] !== key.charCodeAt(i)) return false;
  return true;
};

/**
 * Scans a JSON body without parsing it (UTF-8 multi-byte sequences never hold an ASCII byte): its depth, and
 * the span of the first `document` member of the first `import` member of the top-level object, when the
 * body has one. Structure only: whether the text is JSON is left to the parsers.
 */
export const scanImportBody = (bytes: Uint8Array): ImportBodyScan => {
  const containers: Array<number> = [];
  let max = 0;
  let inString = false;
  let stringStart = 0;
  let expectKey = false;
  let readingKey = false;
  let keyStart = -1;
  let keyEnd = -1;
  let importSeen = false;
  let importNext = false;
  let inImport = false;
  let start = -1;
  let end = -1;
  let inDocument = false;
  let members = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (readingKey) {
          keyStart = stringStart;
          keyEnd = i;
        }
      }
      continue;
    }
    switch (c) {
      case QUOTE:
        inString = true;
        stringStart = i;
        readingKey = expectKey;
        expectKey = false;
        if (!readingKey) importNext = false;
        break;
      case 123: // {
      case 91: // [
        if (importNext && c === 123 && containers.length === 1) inImport = true;
        importNext = false;
        containers.push(c);
        max = Math.max(max, containers.length);
        expectKey = c === 123;
        break;
      case 125: // }
      case 93: // ]
        if (containers.length === 2 && inImport) {
          if (inDocument) end = i;
          inDocument = false;
          inImport = false;
        }
        containers.pop();
        expectKey = false;
        break;
      case 44: // ,
        if (inDocument && containers.length === 2) {
          end = i;
          inDocument = false;
        }
        importNext = false;
        expectKey = containers.at(-1) === 123;
        break;
      case 58: // :
        if (inDocument) members++;
        else if (containers.length === 1 && !importSeen && isKey(bytes, keyStart, keyEnd, "import")) {
          importSeen = true;
          importNext = true;
        } else if (containers.length === 2 && inImport && start < 0 && isKey(bytes, keyStart, keyEnd, "document")) {
          start = i + 1;
          inDocument = true;
        }
        break;
    }
  }
  return { depth: max, document: start >= 0 && end > start ? { start, end, members } : undefined };
};
