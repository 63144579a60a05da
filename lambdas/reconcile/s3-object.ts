/**
 * Reading one S3 object, shared by the stack's reconcile run and the ops CLI (both keep
 * manifests, exports and plans in the run's bucket), and the `s3://bucket/key` form both name
 * them by, and a file's key beside another's.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';

export interface S3ObjectRef {
  readonly bucket: string;
  readonly key: string;
}

/** The bucket and key of an `s3://bucket/key` URI; undefined for anything else. */
export const parseS3Uri = (uri: string): S3ObjectRef | undefined => {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  return match?.[1] === undefined || match[2] === undefined
    ? undefined
    : { bucket: match[1], key: match[2] };
};

/** The key of `file` under the same prefix as `key` (a manifest's export, a run's plan). */
export const siblingKey = (key: string, file: string): string =>
  `${key.includes('/') ? key.slice(0, key.lastIndexOf('/') + 1) : ''}${file}`;

const body = async (s3: S3Client, { bucket, key }: S3ObjectRef) => {
  const answer = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  if (answer.Body === undefined) throw new Error(`s3://${bucket}/${key} has no body`);
  return answer.Body;
};

/** The object's bytes (an export: its checksum is over the bytes). */
export const readS3Bytes = async (s3: S3Client, object: S3ObjectRef): Promise<Uint8Array> =>
  (await body(s3, object)).transformToByteArray();

/** The object as UTF-8 text (a manifest, a plan, a run's kept answers). */
export const readS3Text = async (s3: S3Client, object: S3ObjectRef): Promise<string> =>
  (await body(s3, object)).transformToString('utf-8');
