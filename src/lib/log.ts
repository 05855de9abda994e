/**
 * Structured logs, one JSON object per line. Every line passes through `redactCredentials`: ids in
 * this service double as credentials (the capture link is its `vfy_…` id), and error texts and
 * paths carry them as readily as the fields do.
 */
type Fields = { msg: string } & Record<string, unknown>;

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * Request paths and messages carry credentials: the capture id (`vfy_…`, in capture-flow paths and
 * `/c/…`), the signed upload and evidence tokens (`/v1/uploads/…`, `/v1/evidence/…`: each opens an
 * object until it expires), magic-link tokens (`mlk_…`), invitation tokens (`ivt_…`) and certificate-link
 * tokens (`cert_…`, in `/v1/certificates/…`). The ULID time
 * part of a `vfy_` id stays (it is not secret and lets an operator find the case by its creation
 * time); the 16 random characters are masked.
 */
export function redactCredentials(text: string): string {
  return text
    .replace(/\/v1\/(uploads|evidence)\/[^/?#\s"]+/g, "/v1/$1/[redacted]")
    .replace(/\b(vfy|mlk|ivt|cert)_([0-9A-Za-z]+)/g, (_all, kind: string, body: string) =>
      kind === "vfy" && ULID.test(body) ? `vfy_${body.slice(0, 10)}[redacted]` : `${kind}_[redacted]`,
    );
}

const line = (fields: Fields): string => redactCredentials(JSON.stringify(fields));

export const log = {
  info: (fields: Fields): void => console.log(line(fields)),
  warn: (fields: Fields): void => console.warn(line(fields)),
  error: (fields: Fields): void => console.error(line(fields)),
};
