import { api, ok, type Verification } from "../api";
import { Badge, ErrorNotice, Notice, PageHeader, Progress, Section } from "../components/ui";
import { formatDateTime, REASON_LABEL, VERDICT_LABEL } from "../lib/format";
import { useLoad, useTitle } from "../lib/hooks";
import { isCertified, noCertificateReason, SignatureCheck, useCertificate } from "./detail/certificate";

/**
 * The certificate as whoever it is shared with sees it: what the signed payload says (nothing
 * personal, no photos, no signal detail), after its signature was checked in this browser.
 */
export function CertificateScreen(props: { id: string }) {
  useTitle(`Certificate ${props.id}`);
  const verification = useLoad(() => ok(api.GET("/v1/verifications/{id}", { params: { path: { id: props.id } } })), [props.id]);
  const v = verification.data;
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/console/verifications">Verifications</a> <span aria-hidden="true">/</span> <a class="mono" href={`/console/verifications/${props.id}`}>{props.id}</a>{" "}
        <span aria-hidden="true">/</span> Certificate
      </nav>
      <PageHeader title="Certificate" subtitle="What anyone you share a certificate link with sees: signed by this service, with no photos, answers or signal detail." />
      <ErrorNotice error={verification.error} />
      {!v && !verification.error ? <Progress label="Loading the certificate…" /> : null}
      {v && !isCertified(v) ? <Notice>{noCertificateReason(v)}</Notice> : null}
      {v && isCertified(v) ? <SignedView verification={v} /> : null}
    </>
  );
}

function SignedView(props: { verification: Verification }) {
  const { cert, check } = useCertificate(props.verification);
  const c = cert.data;
  const tone = (label: string) => (label === "verified" ? "good" : label === "suspicious" ? "warn" : "bad");
  return (
    <>
      <ErrorNotice error={cert.error} what="The certificate could not be loaded" />
      {!c && !cert.error ? <Progress label="Loading the certificate…" /> : null}
      {c ? (
        <Section
          title={
            c.payload.verification.tenant.verified_domain
              ? `Verification for ${c.payload.verification.tenant.verified_domain}`
              : `Verification for “${c.payload.verification.tenant.display_name}” (as declared by you)`
          }
        >
          <dl class="facts certificate">
            <dt>Signature</dt>
            <dd>
              <SignatureCheck check={check} certificate={c} />
            </dd>
            <dt>Verdict</dt>
            <dd>
              <Badge tone={tone(c.payload.verification.verdict.label)}>{VERDICT_LABEL[c.payload.verification.verdict.label]}</Badge>
              {c.payload.verification.verdict.reason_code ? <span class="meta">because of: {REASON_LABEL[c.payload.verification.verdict.reason_code]}</span> : null}
            </dd>
            <dt>Checks</dt>
            <dd>
              <ul class="plain">
                {Object.entries(c.payload.verification.verdict.signals).map(([signal, { status, method }]) => (
                  <li key={signal}>
                    {signal.replace("_", " ")}: {status.replace("_", " ")}
                    {method ? <span class="meta"> ({method})</span> : null}
                  </li>
                ))}
              </ul>
            </dd>
            {c.payload.verification.review ? (
              <>
                <dt>Review</dt>
                <dd>
                  {c.payload.verification.review.decision.replace("_", " ")}, {formatDateTime(c.payload.verification.review.reviewed_at)}
                </dd>
              </>
            ) : null}
            <dt>Requested</dt>
            <dd>{formatDateTime(c.payload.verification.created_at)}</dd>
            <dt>Completed</dt>
            <dd>{formatDateTime(c.payload.verification.completed_at)}</dd>
            {c.payload.verification.finalized_at ? (
              <>
                <dt>Finalized by an operator</dt>
                <dd>{formatDateTime(c.payload.verification.finalized_at)}</dd>
              </>
            ) : null}
            {c.payload.verification.redacted_at ? (
              <>
                <dt>Evidence erased</dt>
                <dd>{formatDateTime(c.payload.verification.redacted_at)}</dd>
              </>
            ) : null}
            <dt>Photos</dt>
            <dd>
              <ol class="plain">
                {c.payload.verification.captures.map((p) => (
                  <li key={p.id}>
                    <span class="mono">{p.step_key}</span> ({p.kind === "live" ? "submitted through the capture link" : "uploaded file"}, received {formatDateTime(p.received_at)}) <span class="mono break meta">SHA-256 {p.sha256}</span>
                  </li>
                ))}
              </ol>
            </dd>
            <dt>Certificate</dt>
            <dd>
              No. {c.sequence}, issued {formatDateTime(c.issued_at)}
            </dd>
          </dl>
          <Notice>
            Share it with a certificate link (<a href={`/console/verifications/${props.verification.id}#certificate`}>on the verification</a>), never with the capture link: a
            certificate link opens only this, and you can revoke it.
          </Notice>
        </Section>
      ) : null}
    </>
  );
}
