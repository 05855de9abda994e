import type { Db } from "../../db/client";
import { settings } from "../../env";
import { CreateVerificationSchema } from "../../schemas/verification-create";
import { findTenantBySlug } from "../tenants/tenants";
import { captureUrl } from "../../model/verification/present";
import { ApiError } from "../../lib/errors";
import { log } from "../../lib/log";
import { createVerification } from "../verification/service";
import { countStart, findTemplate, specOf } from "./templates";

export type StartOutcome =
  | { kind: "started"; verificationId: string; captureUrl: string }
  | { kind: "preview"; name: string }
  | { kind: "not_found" }
  | { kind: "revoked"; name: string }
  /** The template requires what the deployment cannot assess any more (or a webhook URL it refuses now). */
  | { kind: "unavailable"; name: string };

/**
 * Link-preview fetchers (chat apps unfurl every link they see) and HEAD requests must not start a
 * verification or count a start: only a person opening the link does.
 */
const LINK_PREVIEW_AGENTS =
  /WhatsApp|facebookexternalhit|Facebot|Slackbot|TelegramBot|Twitterbot|Discordbot|LinkedInBot|SkypeUriPreview|Applebot|Googlebot|bingbot|redditbot|Embedly|Pinterest|vkShare|Iframely|Mastodon/i;

export function isLinkPreview(method: string, userAgent: string | undefined): boolean {
  return method === "HEAD" || (userAgent !== undefined && LINK_PREVIEW_AGENTS.test(userAgent));
}

/**
 * `GET /l/{org}/{slug}`: a fresh verification from the template's current version (recorded on the
 * verification, so a later update never changes it), then the start is counted.
 */
export async function startFromLink(
  env: Env,
  db: Db,
  org: string,
  slug: string,
  options: { preview?: boolean; localRequest?: boolean; now?: number } = {},
): Promise<StartOutcome> {
  const now = options.now ?? Date.now();
  const tenant = await findTenantBySlug(db, org);
  const template = tenant ? await findTemplate(db, tenant.id, slug) : undefined;
  if (!tenant || !template) return { kind: "not_found" };
  if (template.status === "revoked") return { kind: "revoked", name: template.name };
  if (options.preview) return { kind: "preview", name: template.name };
  // A spec stored under older rules (e.g. `signals_required: []`, refused since) starts nothing until its operator updates it.
  const parsed = CreateVerificationSchema.safeParse({ ...specOf(template), mode: template.mode });
  if (!parsed.success) {
    log.warn({ msg: "template start refused: its stored spec no longer passes the creation rules", template_id: template.id, issues: parsed.error.issues.map((i) => i.path.join(".")) });
    return { kind: "unavailable", name: template.name };
  }
  const input = parsed.data;
  let outcome: Awaited<ReturnType<typeof createVerification>>;
  try {
    outcome = await createVerification(env, db, {
      tenantId: tenant.id,
      input,
      originChannel: "link",
      templateId: template.id,
      templateVersion: template.version,
      ...(options.localRequest ? { localRequest: true } : {}),
      now,
    });
  } catch (err) {
    // Checked at publish, so only a deployment that lost a provider since (or a webhook URL that now
    // resolves somewhere private) gets here: the person opening the link is told, the operator logged.
    if (!(err instanceof ApiError) || err.code !== "invalid_request") throw err;
    log.warn({ msg: "template start refused: the template requires what this deployment cannot accept now", template_id: template.id, fields: err.fields ?? {} });
    return { kind: "unavailable", name: template.name };
  }
  if (outcome.kind !== "created") throw new Error("a template start never replays");
  await countStart(db, template.id, now);
  const id = outcome.record.row.id;
  return { kind: "started", verificationId: id, captureUrl: captureUrl(settings(env).baseUrl, id) };
}
