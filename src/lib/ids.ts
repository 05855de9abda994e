import { monotonicFactory, decodeTime, encodeTime } from "ulid";

/** Type prefixes of every record kind (SPEC "Identifiers" plus CONTRACT additions). */
export const ID_PREFIX = {
  verification: "vfy",
  capture: "cap",
  tenant: "tnt",
  otp: "walotp",
  magicLink: "mlk",
  event: "evt",
  user: "usr",
  apiKey: "key",
  template: "tpl",
  webhookDelivery: "whd",
  message: "msg",
  phone: "phn",
  certificateLink: "certlink",
  invitation: "inv",
  audit: "aud",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ULID_BODY = "[0-9A-HJKMNP-TV-Z]{26}";
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * Kinds whose order within one millisecond matters (the audit timeline, delivery and outbox
 * listings) and which never act as a credential. Only these come from a monotonic factory: its
 * ids differ by +1 in the random part, so a neighbour's id is guessable from one's own.
 */
const MONOTONIC_KINDS: ReadonlySet<IdKind> = new Set(["event", "webhookDelivery", "message", "certificateLink", "audit"]);
const nextMonotonic = monotonicFactory(() => crypto.getRandomValues(new Uint8Array(1))[0]! / 256);

/** 80 fresh CSPRNG bits as 16 Crockford base32 characters (the ULID random part). */
function randomPart(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  let out = "";
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

export function newId(kind: IdKind, now: number = Date.now()): string {
  const body = MONOTONIC_KINDS.has(kind) ? nextMonotonic(now) : encodeTime(now, 10) + randomPart();
  return `${ID_PREFIX[kind]}_${body}`;
}

const patterns = new Map<IdKind, RegExp>();
export function idPattern(kind: IdKind): RegExp {
  let re = patterns.get(kind);
  if (!re) {
    re = new RegExp(`^${ID_PREFIX[kind]}_${ULID_BODY}$`);
    patterns.set(kind, re);
  }
  return re;
}

export function isId(kind: IdKind, value: string): boolean {
  return idPattern(kind).test(value);
}

/** Milliseconds since the epoch encoded in a prefixed ULID. */
export function idTime(id: string): number {
  return decodeTime(id.slice(id.indexOf("_") + 1));
}
