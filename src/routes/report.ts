import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { access } from "../auth/access";
import { createDb } from "../db/client";
import { REPORT_LIMITS, enforceLimit, withReportRenderSlot } from "../domain/public-limits";
import { printedId } from "../domain/report/content";
import { gatherReport } from "../domain/report/gather";
import type { AppEnv } from "../env";
import { validationHook } from "../lib/validation";
import { pathId, pickErrors } from "../schemas/common";

/** The evidence report (domain/report): one verification as a PDF an adjuster files with the claim. */
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

const report = createRoute({
  method: "get",
  path: "/v1/verifications/{id}/report.pdf",
  operationId: "getVerificationReport",
  tags: ["Evidence"],
  summary: "The evidence report as a PDF",
  description:
    "The verdict and each required check with what decided it; every capture (its thumbnail, step, received time, SHA-256 and signals); the answers; " +
    "the location check with a map drawn from its coordinates, the object and condition checks; the review; the case analysis; the record seal and the timeline. " +
    "A redacted verification's report shows no image and no personal field, and says it was redacted. " +
    "A domain the tenant proved is printed on a line of its own, apart from the name the tenant declared. The reviewer is named by address only while still a member of the tenant (else \"a former member\"). " +
    "While the verification can still take captures (pending or partially captured, unexpired), its id is the capture link's credential: the report, its title and the file name show only the id's time part (`vfy_` and 10 characters), and say why. " +
    "Pass `certificate_link` (the `cert_…` token of a link from `POST /v1/verifications/{id}/certificate-link`) to print that link with a QR code: " +
    "its URL is shown only when it is created, so the report can print only a link its caller holds (400 unless it is an active link of this verification). " +
    "60 report requests per minute per tenant (refused ones, 400 and 404, included), and at most 3 of a tenant's reports rendering at once (429, `Retry-After: 1`); 429 `Retry-After: 1` too when the serving instance already has 4 reports waiting for their turn.",
  ...access({ apiKey: "full", session: "viewer" }),
  request: {
    params: z.object({ id: pathId("id", { example: "vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z" }) }),
    query: z.object({
      certificate_link: z
        .string()
        .max(100)
        .optional()
        .openapi({ param: { name: "certificate_link", in: "query" }, description: "A certificate link's token (`cert_…`) to print with its QR code.", example: "cert_3kTMd9Xw0sLq2b7YpVn4Rz8HfJ1cGa6uE5oQiW0mN2B" }),
    }),
  },
  responses: {
    200: {
      description: "The report",
      headers: z.object({ "Content-Disposition": z.string().openapi({ example: 'attachment; filename="evidence-report-vfy_01JD2Y4N9M6Q8R0S2T4V6W8X0Z.pdf"' }) }),
      content: { "application/pdf": { schema: z.string().openapi({ format: "binary" }) } },
    },
    ...pickErrors(400, 401, 403, 404, 429, 500),
  },
});

app.openapi(report, async (c) => {
  const principal = c.get("principal");
  const { id } = c.req.valid("param");
  const { certificate_link: certificateLink } = c.req.valid("query");
  await enforceLimit(c.env, REPORT_LIMITS.perTenant, principal.tenantId);
  const { content, pdf } = await withReportRenderSlot(c.env, principal.tenantId, async () => {
    const content = await gatherReport(c.env, createDb(c.env.DB), {
      tenantId: principal.tenantId,
      verificationId: id,
      audience: principal.kind === "session" ? "operator" : "tenant",
      ...(certificateLink !== undefined ? { certificateLink } : {}),
      now: Date.now(),
    });
    // Loaded on the first report, not at every start of the isolate: pdf-lib and fontkit take ~110-130 ms
    // to evaluate, which would otherwise be paid by every cold capture link (bench/PERF-RESULTS.md).
    const { renderReport } = await import("../domain/report/render");
    return { content, pdf: await renderReport(content) };
  });
  return c.body(pdf as Uint8Array<ArrayBuffer>, 200, {
    "Content-Type": "application/pdf",
    "Content-Disposition": `attachment; filename="evidence-report-${printedId(content.verification, content.generatedAt).fileId}.pdf"`,
    "Cache-Control": "no-store",
  });
});

export default app;
