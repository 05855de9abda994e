import { useRef, useState } from "preact/hooks";
import { fetchKeySet, issuerOfJwksUrl, verifyCertificate, type VerifiedCertificate } from "../../../../clients/typescript/src/certificate";
import { api, ok, type Schemas, type Verification } from "../../api";
import { ListTable } from "../../components/list-table";
import { announce, Badge, ConfirmDialog, CopyButton, Empty, ErrorNotice, Field, focusSoon, LoadState, Notice, Progress } from "../../components/ui";
import { formatDateTime, VERDICT_LABEL } from "../../lib/format";
import { useAction, useLoad } from "../../lib/hooks";
import { useWho } from "../../lib/people";
import { useCan } from "../../lib/roles";

type Certificate = Schemas["Certificate"];
type CertificateLink = Schemas["CertificateLink"];

/**
 * Whether the verification has (or is about to have) a certificate: completed with a verdict that
 * evaluated something (one whose assessment is `none` is never certified).
 */
export const isCertified = (v: Verification): boolean => v.status === "completed" && v.verdict !== undefined && v.verdict.assessment !== "none";

/** Why there is no certificate, in words. */
export const noCertificateReason = (v: Verification): string =>
  v.status === "completed" && v.verdict?.assessment === "none"
    ? "No certificate: nothing was evaluated (every photo was existing content, or no required check could run), and nothing evaluated is never certified."
    : "A certificate is signed when the verification completes with its verdict; until then there is nothing to share.";

/**
 * The verification's signed certificate, checked in this browser the way anyone it is shared with
 * checks it (signature against the published keys), and its share links: create, copy, revoke.
 */
export function CertificatePanel(props: { verification: Verification }) {
  const v = props.verification;
  if (!isCertified(v)) {
    return (
      <div class="stack">
        <p class="muted">{noCertificateReason(v)}</p>
        <RecordSeal verification={v} />
      </div>
    );
  }
  return <SignedCertificate verification={v} />;
}

/** The certificate of the verification's current state and its in-browser check (reloads when a review, finalize or redaction re-signs it). */
export function useCertificate(v: Verification) {
  const cert = useLoad(() => ok(api.GET("/v1/verifications/{id}/certificate", { params: { path: { id: v.id } } })), [v.id, v.review?.at, v.redacted_at, v.narrative]);
  const check = useLoad<VerifiedCertificate | undefined>(
    async () => {
      if (!cert.data) return undefined;
      const jwks = await fetchKeySet(cert.data.jwks_url);
      return verifyCertificate(cert.data.certificate, { jwks, issuer: issuerOfJwksUrl(cert.data.jwks_url) });
    },
    [cert.data?.certificate],
  );
  return { cert, check };
}

function SignedCertificate(props: { verification: Verification }) {
  const v = props.verification;
  const { cert, check } = useCertificate(v);
  const c = cert.data;
  return (
    <div class="stack">
      <LoadState of={cert} loading="Loading the certificate…" failed="The certificate could not be loaded" />
      {c ? (
        <>
          <dl class="facts">
            <dt>Signature</dt>
            <dd>
              <SignatureCheck check={check} certificate={c} />
            </dd>
            <dt>Certificate</dt>
            <dd>
              No. {c.sequence}, issued {formatDateTime(c.issued_at)}
            </dd>
            <dt>Certifies</dt>
            <dd>{certifies(c)}</dd>
            {c.payload.verification.record_seal ? (
              <>
                <dt>Record seal</dt>
                <dd class="mono break">{c.payload.verification.record_seal.hash}</dd>
              </>
            ) : null}
          </dl>
          <p class="hint">
            The certificate states, under this service's signature, what it saw and decided: each photo by its SHA-256, the verdict and the review. Anyone can check it against{" "}
            <a href={c.jwks_url}>the published keys</a>. It does not say that what the photos show is true, and it carries no answers, metadata or photos.
            {c.payload.verification.record_seal
              ? " The record seal's hash is certified with it: recomputed from a copy of this record and its answers, it shows whether that copy is the one sealed (the answers are the person's declarations, not checked facts)."
              : null}
          </p>
        </>
      ) : null}
      <CertificateLinks verification={v} />
    </div>
  );
}

export function SignatureCheck(props: { check: ReturnType<typeof useCertificate>["check"]; certificate: Certificate }) {
  const { check } = props;
  if (check.error) return <Badge tone="bad">Not valid: {check.error.message}</Badge>;
  if (!check.data) return <span class="muted">Checking…</span>;
  return (
    <>
      <Badge tone="good">Valid</Badge> <span class="meta">checked here against the published key {props.certificate.kid.slice(0, 8)}…</span>
    </>
  );
}

function certifies(c: Certificate): string {
  const v = c.payload.verification;
  const parts = [`${VERDICT_LABEL[v.verdict.label]} verdict`, `${v.captures.length} photo${v.captures.length === 1 ? "" : "s"} by SHA-256`];
  if (v.review) parts.push(`the review (${v.review.decision.replace("_", " ")})`);
  if (v.finalized_at) parts.push("the case closed");
  if (v.redacted_at) parts.push("the evidence erased");
  return parts.join(", ");
}

function RecordSeal(props: { verification: Verification }) {
  const seal = props.verification.record_seal;
  if (!seal) return null;
  return (
    <dl class="facts">
      <dt>Record seal</dt>
      <dd class="mono break">{seal.hash}</dd>
      <dt>Covers</dt>
      <dd>the record (id, creation time, config) and the answers as the person declared them; certified once the verification completes</dd>
    </dl>
  );
}

/** The evidence report printing this link and its QR code (the report can print only a link its caller holds). */
const reportWithLink = (id: string, url: string): string => `/v1/verifications/${id}/report.pdf?certificate_link=${encodeURIComponent(url.slice(url.lastIndexOf("/") + 1))}`;

/** Share links of the certificate: a URL is shown once, at creation (only its hash is stored). */
function CertificateLinks(props: { verification: Verification }) {
  const who = useWho();
  const v = props.verification;
  const path = { params: { path: { id: v.id } } };
  const links = useLoad(() => ok(api.GET("/v1/verifications/{id}/certificate-links", path)), [v.id]);
  const [created, setCreated] = useState<{ id: string; url: string } | undefined>(undefined);
  const [revoking, setRevoking] = useState<CertificateLink | undefined>(undefined);
  const createdInput = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const create = useAction(async () => {
    const link = await ok(api.POST("/v1/verifications/{id}/certificate-link", path));
    setCreated({ id: link.id, url: link.url });
    announce("Certificate link created");
    // The one time the link is shown: focus on it (selected, ready to copy).
    focusSoon(createdInput);
    await links.reload();
  });
  const revoke = useAction(async (id: string) => {
    await ok(api.DELETE("/v1/certificate-links/{id}", { params: { path: { id } } }));
    setRevoking(undefined);
    // A revoked link answers "not found": the one just created is no longer offered.
    setCreated((shown) => (shown?.id === id ? undefined : shown));
    announce("Certificate link revoked");
    await links.reload();
    // Its Revoke button is gone: back to the top of the links.
    focusSoon(heading);
  });
  const items = links.data?.items ?? [];
  // Sharing is a reviewer's act (the API answers 403 below it); a viewer sees the links, not the controls.
  const mayShare = useCan()("reviewer");
  return (
    <div class="stack">
      <h3 ref={heading} tabIndex={-1}>
        Share it
      </h3>
      <p class="hint">A certificate link opens the certificate and a page that checks it and the photos someone was sent. It is not the capture link and opens nothing else.</p>
      {mayShare ? (
        <div>
          <button type="button" class="button secondary" disabled={create.busy} onClick={() => void create.run()}>
            {create.busy ? "Creating…" : "Create a certificate link"}
          </button>
        </div>
      ) : null}
      <ErrorNotice error={create.error} what="The link was not created" />
      {created ? (
        <Notice tone="success">
          <Field label="New certificate link" hint="Shown only now: it is stored as a hash. Anyone who has it sees the certificate until you revoke the link.">
            {(c) => <input {...c} ref={createdInput} class="mono" readOnly value={created.url} onFocus={(e) => e.currentTarget.select()} />}
          </Field>
          <div class="actions">
            <CopyButton text={created.url} label="Copy link" />
            <a class="button secondary small" href={created.url} target="_blank" rel="noopener noreferrer">
              Open it
            </a>
            <a class="button secondary small" href={reportWithLink(v.id, created.url)} download={`evidence-report-${v.id}.pdf`}>
              Download the report with this link
            </a>
          </div>
        </Notice>
      ) : null}
      <LoadState of={links} loading="Loading the links…" empty={false} />
      {links.data && items.length === 0 ? <Empty>No certificate links yet.</Empty> : null}
      {items.length > 0 ? (
        <ListTable
          caption="Certificate links"
          rows={items}
          rowKey={(l) => l.id}
          columns={[
            { label: "Created", cell: (l) => formatDateTime(l.created_at) },
            // "an API key (key_…)" is one long word: it wraps rather than widen the table.
            { label: "By", cell: (l) => <span class="break">{who(l.created_by)}</span> },
            { label: "Status", cell: (l) => (l.revoked_at ? <Badge tone="neutral">revoked {formatDateTime(l.revoked_at)}</Badge> : <Badge tone="good">active</Badge>) },
            {
              label: "Actions",
              hideLabel: true,
              cell: (l) =>
                l.revoked_at || !mayShare ? null : (
                  <button type="button" class="button secondary small" onClick={() => setRevoking(l)} aria-label={`Revoke the link created ${formatDateTime(l.created_at)}`}>
                    Revoke
                  </button>
                ),
            },
          ]}
        />
      ) : null}
      <ConfirmDialog
        open={revoking !== undefined}
        title="Revoke this certificate link?"
        body={<p>Whoever has it will get “not found” from now on. Other links keep working.</p>}
        confirm="Revoke the link"
        busy={revoke.busy}
        error={revoke.error}
        onConfirm={() => revoking && void revoke.run(revoking.id)}
        onClose={() => {
          setRevoking(undefined);
          revoke.clearError();
        }}
      />
      {revoke.busy ? <Progress label="Revoking…" /> : null}
    </div>
  );
}
