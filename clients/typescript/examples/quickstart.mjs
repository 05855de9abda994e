#!/usr/bin/env node
// @ts-check
/*
 * The installed package in plain JavaScript (Node 20+, no TypeScript loader): create a verification,
 * send it a photo, wait for the verdict and save the certificate.
 *
 *   npm install /path/to/verification-service-client-0.1.0.tgz
 *   VERIFY_BASE_URL=http://localhost:8787 VERIFY_API_KEY=pk_test_… node quickstart.mjs photo.jpg certificate.json
 *   npx verification-certificate verify certificate.json photo.jpg --issuer http://localhost:8787
 *
 * Sending the photo is the capture page's part (the person with the `capture_url` does it, no API
 * key); the script does it itself so that it runs from end to end. It prints one line of JSON.
 * test/browser/client-package.test.ts runs it from a packed and installed copy of the package.
 */
import { readFile, writeFile } from "node:fs/promises";
import { ApiError, createClient } from "@verification-service/client";

const [photoFile, certificateFile] = process.argv.slice(2);
const apiKey = process.env.VERIFY_API_KEY;
if (!photoFile || !certificateFile || !apiKey) {
  console.error("Usage: VERIFY_API_KEY=pk_… [VERIFY_BASE_URL=http://localhost:8787] node quickstart.mjs <photo.jpg> <certificate.json>");
  process.exit(2);
}
const baseUrl = (process.env.VERIFY_BASE_URL ?? "http://localhost:8787").replace(/\/+$/, "");
const client = createClient({ baseUrl, apiKey });

try {
  // A script sends the photo, so the `api` channel: the default `hosted_page` also requires the live
  // frames only the capture page records, and a script's photo would read `depth` not assessed.
  const verification = await client.createVerification({ max_captures: 1, capture_channel: "api", metadata: { claim_id: "CLM-QUICKSTART" } });

  // What a capture flow sends for the person taking the photo: the verification id is its only credential.
  const image_base64 = (await readFile(photoFile)).toString("base64");
  const captured = await fetch(`${baseUrl}/v1/verifications/${verification.id}/captures`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ image_base64 }),
  });
  if (captured.status !== 201) throw new Error(`the capture was refused: HTTP ${captured.status} ${await captured.text()}`);

  const settled = await client.waitForVerification(verification.id, { intervalMs: 1_000, timeoutMs: 120_000 });
  const outcome = { node: process.version, id: settled.id, status: settled.status, verdict: settled.verdict ?? null };
  if (settled.status !== "completed") {
    console.log(JSON.stringify(outcome));
    process.exit(1);
  }

  // Any operation of the API through the typed openapi-fetch client: here the signed certificate.
  const { data: certificate, error } = await client.api.GET("/v1/verifications/{id}/certificate", { params: { path: { id: settled.id } } });
  if (!certificate) throw new Error(`no certificate: ${JSON.stringify(error)}`);
  await writeFile(certificateFile, JSON.stringify(certificate, null, 2));
  console.log(JSON.stringify({ ...outcome, certificate: certificateFile }));
} catch (err) {
  if (!(err instanceof ApiError)) throw err;
  console.error(`${err.status} ${err.code}: ${err.message} (request ${err.requestId})`);
  process.exit(1);
}
