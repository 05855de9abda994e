import type { ComponentChildren } from "preact";
import type { AuditEvent } from "../../api";
import { Empty } from "../../components/ui";
import { formatDateTime } from "../../lib/format";
import { useWho } from "../../lib/people";

const NAMES: Record<string, string> = {
  "verification.created": "Created",
  "verification.capture.persisted": "Evidence received",
  "verification.answer.recorded": "Question answered",
  "verification.submitted": "Submitted by the person",
  "verification.ready": "Evidence complete",
  "verification.abandoned": "Left the capture page",
  "verification.completed": "Completed with a verdict",
  "verification.expired": "Expired",
  "verification.failed": "Failed",
  "verification.case.completed": "Finalized with a narrative",
  "verification.case.analyzed": "Case analysis arrived",
  "verification.reviewed": "Reviewed",
  "verification.redacted": "Evidence erased",
};

const DECISIONS: Record<string, string> = { approved: "approved", rejected: "rejected", needs_more: "needs more evidence" };

/**
 * The words of one payload, for the entries whose payload says something to a person. What a person
 * typed is isolated (`<bdi>`): a bidi override in a note would otherwise reorder the attribution
 * beside it, and the timeline would name another reviewer.
 */
function detail(e: AuditEvent, who: (id: string) => string): ComponentChildren {
  const p = (e.payload ?? {}) as Record<string, unknown>;
  if (e.event_name === "verification.reviewed" && typeof p.decision === "string") {
    return (
      <>
        {DECISIONS[p.decision] ?? p.decision}
        {typeof p.note === "string" ? <>: “<bdi>{p.note}</bdi>”</> : null}
        {typeof p.by === "string" ? <> (by <bdi>{who(p.by)}</bdi>)</> : null}
      </>
    );
  }
  if (e.event_name === "verification.case.completed" && typeof p.narrative === "string") return <>“<bdi>{p.narrative}</bdi>”</>;
  if (e.event_name === "verification.capture.persisted" && typeof p.step_key === "string") return <>step <bdi>{p.step_key}</bdi></>;
  if (e.event_name === "verification.answer.recorded" && typeof p.step_key === "string") {
    return (
      <>
        step <bdi>{p.step_key}</bdi>
        {typeof p.revision === "number" && p.revision > 1 ? ` (answer changed, version ${p.revision})` : ""}
      </>
    );
  }
  if (e.event_name === "verification.completed" && typeof p.label === "string") {
    return p.assessment === "none" ? `nothing assessed (stored label: ${p.label})` : `verdict ${p.label}`;
  }
  if (e.event_name === "verification.failed" && typeof p.reason === "string") return p.reason;
  return undefined;
}

export function Timeline(props: { events: AuditEvent[] }) {
  const who = useWho();
  if (props.events.length === 0) return <Empty>Nothing recorded yet.</Empty>;
  return (
    <ol class="timeline">
      {props.events.map((e) => {
        const words = detail(e, who);
        return (
          <li key={e.event_id}>
            <time dateTime={e.occurred_at}>{formatDateTime(e.occurred_at)}</time>
            <span class="event">{NAMES[e.event_name] ?? e.event_name}</span>
            {words ? <span class="event-detail">{words}</span> : null}
          </li>
        );
      })}
    </ol>
  );
}
