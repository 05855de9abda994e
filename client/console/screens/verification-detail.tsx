import { api, isOpen, ok, OPEN_STATUSES, type Verification, type WebhookDelivery } from "../api";
import { ReviewBadge, StatusBadge, VerdictBadge } from "../components/badges";
import { Badge, CopyButton, ErrorNotice, LoadState, Notice, PageHeader, Progress, Section } from "../components/ui";
import { captureLinkFact } from "../lib/capture-link";
import { formatDateTime, SIGNAL_NAMES } from "../lib/format";
import { useLoad, usePolling, useRefreshOnReturn, useTitle } from "../lib/hooks";
import { useCan } from "../lib/roles";
import { reasonLabel, SIGNAL_CHECKS, signalResult } from "../lib/signals";
import { IndependentChecks } from "./detail/checks";
import { DeliveryTable } from "./detail/deliveries";
import { FinalizePanel } from "./detail/finalize";
import { Photos } from "./detail/photos";
import { RedactPanel } from "./detail/redact";
import { ReviewPanel } from "./detail/review";
import { CertificatePanel, isCertified } from "./detail/certificate";
import { Timeline } from "./detail/timeline";

/** Every page of the timeline (bounded by design: a few pages at most). */
async function wholeTimeline(id: string) {
  const events = [];
  let cursor: string | undefined;
  do {
    const page = await ok(api.GET("/v1/verifications/{id}/events", { params: { path: { id }, query: cursor === undefined ? {} : { cursor } } }));
    events.push(...page.events);
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  return { events };
}

export function VerificationDetailScreen(props: { id: string }) {
  useTitle(props.id);
  const can = useCan();
  const path = { params: { path: { id: props.id } } };
  const verification = useLoad(() => ok(api.GET("/v1/verifications/{id}", path)), [props.id]);
  const events = useLoad(() => wholeTimeline(props.id), [props.id]);
  const deliveries = useLoad(() => ok(api.GET("/v1/verifications/{id}/webhook-deliveries", path)), [props.id]);
  const captures = useLoad(() => ok(api.GET("/v1/verifications/{token}/captures", { params: { path: { token: props.id } } })), [props.id]);
  const v = verification.data;

  // While the verification can still move on its own (captures arriving, analysis running), keep reading it.
  usePolling(
    async () => {
      await Promise.all([verification.reload(), events.reload(), deliveries.reload(), captures.reload()]);
    },
    4_000,
    v !== undefined && (isOpen(v) || (captures.data?.items ?? []).some((c) => c.analysis.status === "pending")),
  );

  // A finished case is not polled, yet another tab or member may still review or finalize it.
  useRefreshOnReturn(async () => {
    await Promise.all([verification.reload(), events.reload()]);
  });

  const update = (next: Verification) => {
    verification.set(next);
    void events.reload();
    void deliveries.reload();
    if (next.redacted_at) void captures.reload();
  };

  if (verification.error) {
    return (
      <>
        <PageHeader title="Verification" />
        <ErrorNotice error={verification.error} what={verification.error.status === 404 ? "No such verification in this tenant" : "The verification could not be loaded"} />
        <a href="/console/verifications">Back to the list</a>
      </>
    );
  }
  if (!v) return <Progress label="Loading the verification…" />;

  const metadata = Object.entries(v.config.metadata ?? {});
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/console/verifications">Verifications</a> <span aria-hidden="true">/</span> <span class="mono">{v.id}</span>
      </nav>
      <PageHeader
        title={
          metadata.length > 0
            ? metadata.map(([k, value], i) => (
                <span key={k}>
                  {i > 0 ? " · " : null}
                  <bdi>{k}</bdi> <bdi>{value}</bdi>
                </span>
              ))
            : "Verification"
        }
        focusKey={v.id}
        subtitle={
          <>
            <span class="mono">{v.id}</span> · created {formatDateTime(v.created_at)}
            {v.template ? (
              <>
                {" "}
                · from template <a href={`/console/verifications?template_id=${v.template.id}`}>{v.template.id}</a> v{v.template.version}
              </>
            ) : null}
          </>
        }
        actions={
          <>
            {/* Offered while the link can still take evidence: a dead link sent to a person helps nobody. */}
            {can("reviewer") && OPEN_STATUSES.includes(v.status) && !v.redacted_at && !v.submitted_at ? (
              <CopyButton text={v.capture_url} label="Copy capture link" />
            ) : null}
            {/* Only once there is one: before, the Certificate card below says when it comes. */}
            {isCertified(v) ? (
              <a class="button secondary small" href={`/console/verifications/${v.id}/certificate`}>
                Open certificate
              </a>
            ) : null}
            <a class="button secondary small" href={`/v1/verifications/${v.id}/report.pdf`} download={`evidence-report-${v.id}.pdf`}>
              Download report
            </a>
          </>
        }
      />

      <section class="summary card" aria-label="Summary">
        <dl class="summary-facts">
          <div>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={v.status} />
            </dd>
          </div>
          <div>
            <dt>Verdict</dt>
            <dd>
              <VerdictBadge verification={v} />
            </dd>
          </div>
          <div>
            <dt>Review</dt>
            <dd>
              <ReviewBadge review={v.review} />
            </dd>
          </div>
          <div>
            <dt>Captures</dt>
            <dd>
              {v.captures_count} of {v.config.max_captures}
            </dd>
          </div>
          <div>
            <dt>{captureLinkFact(v).term}</dt>
            <dd>{captureLinkFact(v).value}</dd>
          </div>
          {v.failure_reason ? (
            <div>
              <dt>Failure</dt>
              <dd>{v.failure_reason}</dd>
            </div>
          ) : null}
        </dl>
        {isOpen(v) ? <Progress label={v.status === "completed" ? "Analysing the evidence…" : "Waiting for the person to finish; this page updates by itself."} /> : null}
      </section>

      <div class="detail-grid">
        <div class="stack">
          <Section title="Photos and files" id="photos">
            <Photos verification={v} captures={captures} />
          </Section>
          <Section title="Verdict" id="verdict">
            <VerdictPanel verification={v} />
          </Section>
          <Section title="Location, object and condition" id="checks">
            <IndependentChecks verification={v} />
          </Section>
          <Section title="Answers" id="answers">
            <Answers verification={v} />
          </Section>
          {can("reviewer") || v.review ? (
            <Section title="Review" id="review">
              {can("reviewer") ? <ReviewPanel verification={v} onChange={update} /> : <p>The latest review is in the summary above and every one is on the timeline.</p>}
            </Section>
          ) : null}
          {can("reviewer") || v.case_analysis || v.narrative ? (
            <Section title="Case analysis" id="finalize">
              <FinalizePanel
                verification={v}
                onChange={update}
                canFinalize={can("reviewer")}
                finalizedOnTimeline={events.data?.events.some((e) => e.event_name === "verification.case.completed")}
              />
            </Section>
          ) : null}
          <Section title="Webhook deliveries" id="deliveries">
            <LoadState of={deliveries} loading="Loading deliveries…" />
            {deliveries.data ? (
              <DeliveryTable
                canRetry={can("admin")}
                deliveries={deliveries.data.items}
                onChanged={(d: WebhookDelivery) => deliveries.set({ items: deliveries.data!.items.map((x) => (x.id === d.id ? d : x)) })}
              />
            ) : null}
          </Section>
        </div>
        <div class="stack">
          <Section title="Timeline" id="timeline">
            {events.data ? <Timeline events={events.data.events} /> : <Progress label="Loading the timeline…" />}
            <ErrorNotice error={events.error} />
          </Section>
          <Section title="Certificate" id="certificate">
            <CertificatePanel verification={v} />
          </Section>
          <Section title="Configuration" id="config">
            <ConfigFacts verification={v} />
          </Section>
          {can("admin") ? (
            <Section title="Erase the evidence" id="redact" class="danger-zone">
              <RedactPanel verification={v} onChange={update} />
            </Section>
          ) : null}
        </div>
      </div>
    </>
  );
}

function VerdictPanel(props: { verification: Verification }) {
  const v = props.verification;
  if (!v.verdict) {
    return <p class="muted">{v.status === "completed" ? "The analysis is writing the verdict." : "The verdict is written once the evidence is complete and analysed."}</p>;
  }
  const verdict = v.verdict;
  return (
    <div class="stack">
      <p class="verdict-line">
        <VerdictBadge verification={v} withReason={false} /> verdict confidence {Math.round(verdict.score * 100)} %
        {verdict.reason_code ? <> · because of: {reasonLabel(verdict)}</> : null}
      </p>
      {verdict.assessment === "partial" ? (
        <Notice tone="warning">
          Partly assessed: {verdict.not_assessed.map((s) => SIGNAL_CHECKS[s]?.name ?? s).join(", ")} could not run, so this verdict cannot be “verified”.
        </Notice>
      ) : verdict.assessment === "none" ? (
        <Notice tone={verdict.not_assessed.length > 0 ? "warning" : "info"}>
          Nothing was assessed:{" "}
          {verdict.not_assessed.length > 0
            ? `${verdict.not_assessed.map((s) => SIGNAL_CHECKS[s]?.name ?? s).join(", ")} could not run.`
            : "every required check was not applicable (uploaded content) or none was required."}
        </Notice>
      ) : null}
      {/* In a table-wrap: it stacks into labelled cards wherever its column is narrow (styles.css). */}
      <div class="table-wrap">
        <table class="signals responsive">
          <caption class="visually-hidden">Signals</caption>
          <thead>
            <tr>
              <th scope="col">Check</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(verdict.signals).map(([key, value]) => {
              const result = signalResult(key, value as Record<string, unknown>);
              return (
                <tr key={key}>
                  <th scope="row" data-label="Check">
                    {SIGNAL_CHECKS[key]?.name ?? key}
                    <span class="meta">checks {SIGNAL_CHECKS[key]?.checks ?? "—"}</span>
                  </th>
                  <td data-label="Result">
                    <Badge tone={result.tone}>{result.text}</Badge>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function Answers(props: { verification: Verification }) {
  const v = props.verification;
  const texts = v.config.steps.filter((s) => s.type === "text");
  if (texts.length === 0) return <p class="muted">This verification asks no questions.</p>;
  return (
    <dl class="facts">
      {texts.map((s) => {
        const answer = v.answers?.[s.key];
        return (
          <div key={s.key} class="fact">
            <dt>{s.description || s.key}</dt>
            <dd>
              {answer ? (
                <>
                  <bdi class="answer">{answer.value}</bdi> <span class="meta">answered {formatDateTime(answer.answered_at)}; declared by the person, not attested</span>
                </>
              ) : (
                <span class="muted">Not answered</span>
              )}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

function ConfigFacts(props: { verification: Verification }) {
  const c = props.verification.config;
  return (
    <dl class="facts">
      <dt>Steps</dt>
      <dd>
        <ol class="plain">
          {c.steps.map((s) => (
            <li key={s.key}>
              <span class="mono">{s.key}</span>: {s.type === "image" ? `${s.min}–${s.max} live photo(s)` : s.type === "upload" ? `${s.min}–${s.max} image file(s)` : s.required ? "required answer" : "optional answer"}
              {s.description ? ` — ${s.description}` : ""}
            </li>
          ))}
        </ol>
      </dd>
      <dt>Checks</dt>
      <dd>{c.signals_required.map((s) => SIGNAL_NAMES[s]).join(", ") || "none"}</dd>
      {c.context ? (
        <>
          <dt>Context</dt>
          <dd>
            {c.context.kind}: {c.context.summary}
          </dd>
        </>
      ) : null}
      {c.webhook_url ? (
        <>
          <dt>Webhook</dt>
          <dd class="break">{c.webhook_url}</dd>
        </>
      ) : null}
      {c.notify_email ? (
        <>
          <dt>Email when done</dt>
          <dd>{c.notify_email}</dd>
        </>
      ) : null}
      {Object.keys(c.metadata ?? {}).length > 0 ? (
        <>
          <dt>Metadata</dt>
          <dd>
            <ul class="plain">
              {Object.entries(c.metadata ?? {}).map(([k, value]) => (
                <li key={k}>
                  <bdi class="mono">{k}</bdi>: <bdi>{value}</bdi>
                </li>
              ))}
            </ul>
          </dd>
        </>
      ) : null}
    </dl>
  );
}
