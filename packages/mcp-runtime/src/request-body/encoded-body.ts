import type { MultipartPart, PlannedBody } from "@mcpsm/domain/mcp";
import { fileTypeFromBuffer } from "file-type";

// The bytes of a planned upstream body (docs/api-rules.md §15a). A multipart body is assembled by the
// platform's own FormData serialiser (WHATWG fetch's, in Node: undici), which picks the boundary; its
// Content-Type then must win over any a tool header sets, or the upstream could not find the parts. A file
// part's name gets the extension of what its bytes are (file-type reads their signature), and a part
// declared only as octet-stream gets that media type: APIs such as OpenAI's audio and image uploads tell
// formats by the file name.

/** A request body ready to send. */
export interface EncodedBody {
  readonly contentType: string;
  readonly data: string | Uint8Array;
  /** True when `contentType` carries what the bytes need (a multipart boundary): no header may replace it. */
  readonly fixedType: boolean;
}

/** The encoded form of `body` (undefined when none is sent). */
export const encodedBody = async (body: PlannedBody | undefined): Promise<EncodedBody | undefined> => {
  if (body === undefined) return undefined;
  if (body.kind === "bytes") return { contentType: body.contentType, data: body.data, fixedType: false };
  const form = new FormData();
  for (const part of body.parts) {
    if (typeof part.value === "string" && part.contentType === undefined) form.append(part.name, part.value);
    else {
      const { type, filename } = await fileMetadata(part);
      form.append(
        part.name,
        new Blob([typeof part.value === "string" ? part.value : new Uint8Array(part.value)], { type }),
        filename,
      );
    }
  }
  const serialised = new Response(form);
  return {
    contentType: serialised.headers.get("content-type") ?? "multipart/form-data",
    data: new Uint8Array(await serialised.arrayBuffer()),
    fixedType: true,
  };
};

/** A file part's media type and name: the declared ones, with what the bytes' signature tells added. */
const fileMetadata = async (part: MultipartPart): Promise<{ type: string; filename: string }> => {
  const declared = part.contentType ?? "application/octet-stream";
  const name = part.filename ?? part.name;
  if (typeof part.value === "string") return { type: declared, filename: name };
  const detected = await fileTypeFromBuffer(part.value).catch(() => undefined);
  if (detected === undefined) return { type: declared, filename: name };
  return {
    type: declared === "application/octet-stream" ? detected.mime : declared,
    filename: name.includes(".") ? name : `${name}.${detected.ext}`,
  };
};
