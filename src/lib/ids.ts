import { monotonicFactory, decodeTime } from "ulid";

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
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ULID_BODY = "[0-9A-HJKMNP-TV-Z]{26}";
const nextUlid = monotonicFactory();

export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIX[kind]}_${nextUlid(now)}`;
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
