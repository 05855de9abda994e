import type { Role } from "../../auth/roles";

/*
 * The words of an invitation (its email and its page): fixed wording, the service's own. The tenant
 * is named by the domain it proved (DNS TXT, domain/tenants/domains.ts), otherwise by the inviter's
 * email address (an address the inviter signed in with): never by the display name the tenant typed,
 * so an invitation cannot carry a made-up "Allianz SE" (or any other message) to an address of the
 * inviter's choosing from the service's own sender.
 */

export interface InvitationNaming {
  verifiedDomain: string | null;
  inviterEmail: string | null;
}

const ROLE_WORDS: Record<Role, string> = { owner: "an owner", admin: "an admin", reviewer: "a reviewer", viewer: "a viewer" };

/** "the team of acme.example (a domain it proved it controls)", or "their team", or "a team". */
function team(naming: InvitationNaming): string {
  if (naming.verifiedDomain) return `the team of ${naming.verifiedDomain} (a domain it proved it controls)`;
  return naming.inviterEmail ? "their team" : "a team";
}

function invitedYou(naming: InvitationNaming): string {
  return naming.inviterEmail ? `${naming.inviterEmail} invited you` : "You are invited";
}

export function invitationSubject(naming: InvitationNaming): string {
  if (naming.verifiedDomain) return `Join the team of ${naming.verifiedDomain} on the verification dashboard`;
  return naming.inviterEmail ? `${naming.inviterEmail} invited you to the verification dashboard` : "An invitation to the verification dashboard";
}

export function invitationEmail(naming: InvitationNaming, role: Role, link: string): string {
  return [
    `${invitedYou(naming)} to join ${team(naming)} on the verification dashboard, as ${ROLE_WORDS[role]}.`,
    "",
    link,
    "",
    "The link works once, within 7 days. If you did not expect this invitation, ignore this email: nothing happens unless you open the link and confirm.",
  ].join("\n");
}

/** The confirmation page's title and sentence; `existingAccount`: the address has an account, which then signs in as usual. */
export function invitationPage(naming: InvitationNaming, role: Role, email: string, existingAccount: boolean): { title: string; text: string } {
  const title = naming.verifiedDomain ? `Join the team of ${naming.verifiedDomain}` : "Join a team";
  const joining = `${invitedYou(naming)} to join ${team(naming)} as ${role}`;
  const text = existingAccount
    ? `${joining}. ${email} already has an account: confirm here, then sign in as you usually do, and the team is added to your account.`
    : `${joining}, signing in as ${email}.`;
  return { title, text };
}
