/**
 * Where `reconcile` reads and writes: a local path, or an `s3://bucket/key` URI (the stack's run
 * keeps manifests, exports and plans in its bucket). A sibling is a file in the same folder or
 * under the same key prefix, as a manifest's `file` is.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { parseS3Uri, readS3Bytes, siblingKey } from '../../lambdas/reconcile/s3-object';
import { OpsError } from '../errors';

export interface Location {
  /** As the operator wrote it (messages, the run history). */
  readonly name: string;
  read(): Promise<Uint8Array>;
  /** Files are written with mode 0600: plans hold repair messages, which hold personal data. */
  write(text: string): Promise<void>;
  sibling(file: string): Location;
}

const fileLocation = (file: string): Location => ({
  name: file,
  read: () => readFile(file),
  write: (text) => writeFile(file, text, { mode: 0o600 }),
  sibling: (name) => fileLocation(path.join(path.dirname(file), name)),
});

const s3Location = (s3: () => S3Client, bucket: string, key: string): Location => ({
  name: `s3://${bucket}/${key}`,
  read: () => readS3Bytes(s3(), { bucket, key }),
  write: async (text) => {
    await s3().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: text }));
  },
  sibling: (name) => s3Location(s3, bucket, siblingKey(key, name)),
});

export const locate = (text: string, s3: () => S3Client): Location => {
  const object = parseS3Uri(text);
  return object ? s3Location(s3, object.bucket, object.key) : fileLocation(text);
};

export const readText = async (location: Location, what: string): Promise<string> => {
  try {
    return Buffer.from(await location.read()).toString('utf8');
  } catch (error) {
    if (error instanceof OpsError) throw error;
    throw new OpsError(`Cannot read the ${what} ${location.name}: ${(error as Error).message}`);
  }
};

/** The file a command names (a path or s3:// URI), read as text; `s3` serves its siblings. */
export const readNamed = async (where: string, what: string, region: string | undefined) => {
  const s3 = lazyS3(region);
  const location = locate(where, s3);
  return { s3, location, text: await readText(location, what) };
};

/** One S3 client for a command, made on first use (most runs read local files only). */
export const lazyS3 = (region: string | undefined): (() => S3Client) => {
  let client: S3Client | undefined;
  return () => {
    client ??= new S3Client(region === undefined ? {} : { region });
    return client;
  };
};
