import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Reads a file of the data directory, creating it with `make()` (mode 0600) the first time. */
export const readOrCreate = async (
  dataDir: string,
  name: string,
  make: () => string | Promise<string>,
): Promise<string> => {
  const path = join(dataDir, name);
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const content = await make();
  try {
    // `wx` fails if another process created it meanwhile; then theirs wins and is read back.
    await writeFile(path, content, { mode: 0o600, flag: "wx" });
    return content;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return readFile(path, "utf8");
  }
};

/** The local encryption key (32 random bytes, base64), generated once into the data directory. */
export const localEncryptionKey = async (dataDir: string): Promise<Uint8Array> => {
  const text = await readOrCreate(dataDir, "encryption.key", () => randomBytes(32).toString("base64"));
  const key = Buffer.from(text.trim(), "base64");
  // A damaged key file must stop the start, not fail the first secret read or write with a 500.
  if (key.length !== 32) throw new Error(`${join(dataDir, "encryption.key")} does not hold 32 base64-encoded bytes`);
  return new Uint8Array(key);
};
