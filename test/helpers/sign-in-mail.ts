import { and, eq } from "drizzle-orm";
import { outboundMessages } from "../../src/db/schema";
import { db, eventually } from "./api";

/*
 * Sign-in emails as the tests read them. The link is stored and sent after the request's answer
 * (`requestMagicLink` with `later`), so a test waits for the email rather than reading it at once.
 */

const SUBJECT = "Your sign-in link";
const LOCAL_LINK = /http:\/\/localhost:8787(\/v1\/auth\/magic-link\/mlk_[0-9A-Za-z]+)/;

/** The sign-in emails stored for `address` so far, oldest first. */
export async function signInMails(address: string) {
  const rows = await db().select().from(outboundMessages).where(and(eq(outboundMessages.recipient, address), eq(outboundMessages.subject, SUBJECT)));
  return rows.sort((a, b) => a.id.localeCompare(b.id));
}

/** Waits until more than `sentBefore` sign-in emails were stored for `address`; the newest. */
export async function nextSignInMail(address: string, sentBefore = 0) {
  const rows = await eventually(async () => {
    const sent = await signInMails(address);
    return sent.length > sentBefore ? sent : null;
  }, `sign-in email ${sentBefore + 1} to ${address}`);
  return rows.at(-1)!;
}

/** The path of the link in the next sign-in email to `address` (the local outbox keeps the live link). */
export async function nextSignInLink(address: string, sentBefore = 0): Promise<string> {
  const mail = await nextSignInMail(address, sentBefore);
  const match = LOCAL_LINK.exec(mail.body);
  if (!match) throw new Error(`no magic link in ${JSON.stringify(mail.body)}`);
  return match[1]!;
}
