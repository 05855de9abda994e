import { AwsClient } from "aws4fetch";

export const PRESIGN_TTL_SECONDS = 300;

export interface R2Credentials {
  accountId: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
}

export function r2Credentials(env: Env): R2Credentials | null {
  if (env.UPLOAD_MODE !== "direct") return null;
  const { R2_ACCOUNT_ID, R2_ACCESS_KEY_ID, R2_SECRET_ACCESS_KEY, R2_BUCKET_NAME } = env;
  if (!R2_ACCOUNT_ID || !R2_ACCESS_KEY_ID || !R2_SECRET_ACCESS_KEY || !R2_BUCKET_NAME) {
    throw new Error("UPLOAD_MODE=direct needs R2_ACCOUNT_ID, R2_ACCESS_KEY_ID, R2_SECRET_ACCESS_KEY and R2_BUCKET_NAME");
  }
  return { accountId: R2_ACCOUNT_ID, accessKeyId: R2_ACCESS_KEY_ID, secretAccessKey: R2_SECRET_ACCESS_KEY, bucket: R2_BUCKET_NAME };
}

/**
 * A SigV4 query-signed PUT straight to R2's S3 endpoint. `content-type` and `if-none-match: *` are
 * signed (aws4fetch leaves content-type unsigned unless `allHeaders`), so the URL only accepts that
 * media type and only creates the object once; it expires after `ttlSeconds` (at most 300 s).
 */
export async function presignPut(creds: R2Credentials, key: string, contentType: string, now = new Date(), ttlSeconds = PRESIGN_TTL_SECONDS): Promise<string> {
  const client = new AwsClient({ accessKeyId: creds.accessKeyId, secretAccessKey: creds.secretAccessKey, service: "s3", region: "auto" });
  const url = new URL(`https://${creds.accountId}.r2.cloudflarestorage.com/${creds.bucket}/${key.split("/").map(encodeURIComponent).join("/")}`);
  url.searchParams.set("X-Amz-Expires", String(Math.max(1, Math.min(PRESIGN_TTL_SECONDS, Math.ceil(ttlSeconds)))));
  const signed = await client.sign(
    new Request(url, { method: "PUT", headers: { "content-type": contentType, "if-none-match": "*" } }),
    { aws: { signQuery: true, allHeaders: true, datetime: now.toISOString().replace(/[:-]|\.\d{3}/g, "") } },
  );
  return signed.url;
}
