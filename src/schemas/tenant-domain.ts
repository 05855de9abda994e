import { z } from "@hono/zod-openapi";
import { DateTime } from "./common";

/* A tenant's domain, proved by a DNS TXT record (domain/tenants/domains.ts). */

/** Names that only resolve inside a network: nobody could prove them to a reader elsewhere. */
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan", ".intranet", ".corp"];
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A public DNS name of at least two labels (letters, digits, hyphens; IDNs in their `xn--` form), not an address or a local name. */
export function isPublicDomainName(raw: string): boolean {
  const name = raw.trim().toLowerCase().replace(/\.$/, "");
  if (name.length === 0 || name.length > 253 || name === "localhost") return false;
  if (LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix))) return false;
  const labels = name.split(".");
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return false;
  // An all-digit top-level label is an IPv4 address (or no public name).
  return !/^\d+$/.test(labels.at(-1)!);
}

const DomainName = z
  .string()
  .max(254)
  .refine(isPublicDomainName, { message: "A public domain name, e.g. acme-insurance.com (IDNs in their xn-- form); not an address or a local name." })
  .openapi({ example: "acme-insurance.example" });

export const DomainClaimRequestSchema = z.strictObject({ domain: DomainName }).openapi("DomainClaimRequest");

export const TenantDomainSchema = z
  .object({
    verified_domain: z
      .object({
        domain: z.string().openapi({ example: "acme-insurance.example" }),
        verified_at: DateTime.openapi({ description: "When the TXT record was first found." }),
        confirmed_at: DateTime.openapi({ description: "When the record was last found (the service looks again every 6 hours)." }),
      })
      .optional()
      .openapi({ description: "The domain the tenant proved: certificates and emails name the tenant by it. Absent until proved, and after the record disappears." }),
    claim: z
      .object({
        domain: z.string().openapi({ example: "acme-insurance.example" }),
        record: z
          .object({
            name: z.string().openapi({ example: "_verification-service.acme-insurance.example" }),
            type: z.literal("TXT"),
            value: z.string().openapi({ example: "verification-service-domain=4bQ1x9Zk2LmN8pR3sT5vW7yA0cE2gI4kM6oQ8sU0wY2" }),
          })
          .openapi({ description: "The record to publish at your DNS provider, exactly so; then `POST /v1/tenant/domain/check`." }),
        created_at: DateTime,
        expires_at: DateTime.openapi({ description: "7 days after the claim; start a new one after that." }),
      })
      .optional()
      .openapi({ description: "A pending claim (one at a time): the record that will prove it." }),
  })
  .openapi("TenantDomain");
