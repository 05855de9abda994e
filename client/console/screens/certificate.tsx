import { api, ok } from "../api";
import { StatusBadge } from "../components/badges";
import { Badge, ErrorNotice, Notice, PageHeader, Progress, Section } from "../components/ui";
import { formatDateTime, VERDICT_LABEL } from "../lib/format";
import { useLoad, useTitle } from "../lib/hooks";

/**
 * The certificate: exactly what the share-safe projection (`GET /v1/verifications/{id}/public`,
 * no credential) tells a third party: who asked, when, the status and the verdict label, nothing
 * personal and no signal detail.
 */
export function CertificateScreen(props: { id: string }) {
  useTitle(`Certificate ${props.id}`);
  const cert = useLoad(() => ok(api.GET("/v1/verifications/{id}/public", { params: { path: { id: props.id } } })), [props.id]);
  const c = cert.data;
  const tone = c?.verdict?.label === "verified" ? "good" : c?.verdict?.label === "suspicious" ? "warn" : "bad";
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/console/verifications">Verifications</a> <span aria-hidden="true">/</span> <a class="mono" href={`/console/verifications/${props.id}`}>{props.id}</a>{" "}
        <span aria-hidden="true">/</span> Certificate
      </nav>
      <PageHeader title="Certificate" subtitle="What anyone holding the verification id can see: no photos, answers or signal detail." />
      <ErrorNotice error={cert.error} />
      {!c && !cert.error ? <Progress label="Loading the certificate…" /> : null}
      {c ? (
        <Section title={`Verification for ${c.tenant.display_name}`}>
          <dl class="facts certificate">
            <dt>Verification</dt>
            <dd class="mono">{c.id}</dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={c.status} />
            </dd>
            <dt>Verdict</dt>
            <dd>{c.verdict ? <Badge tone={tone}>{VERDICT_LABEL[c.verdict.label]}</Badge> : "Not yet decided"}</dd>
            <dt>Requested</dt>
            <dd>{formatDateTime(c.created_at)}</dd>
            <dt>Completed</dt>
            <dd>{formatDateTime(c.completed_at)}</dd>
            <dt>Photos and files</dt>
            <dd>{c.captures_count}</dd>
          </dl>
          <Notice>
            The same data as JSON: <a href={`/v1/verifications/${c.id}/public`}>/v1/verifications/{c.id}/public</a>. The id is also the capture link's credential: share it only once the
            verification is complete.
          </Notice>
        </Section>
      ) : null}
    </>
  );
}
