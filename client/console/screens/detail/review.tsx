import { useRef, useState } from "preact/hooks";
import { api, ApiError, ok, type Verification } from "../../api";
import { ReviewBadge } from "../../components/badges";
import { announce, ErrorNotice, Field, focusSoon, Notice, Progress } from "../../components/ui";
import { formatDateTime } from "../../lib/format";
import { useAction, useDraft } from "../../lib/hooks";
import { useWho } from "../../lib/people";

type Decision = "approved" | "rejected" | "needs_more";
const DECISIONS: Array<[Decision, string, string]> = [
  ["approved", "Approve", "The evidence supports the claim."],
  ["rejected", "Reject", "The evidence does not support it."],
  ["needs_more", "Needs more evidence", "Recorded only: create a new verification to ask for more."],
];

/** The operator's decision beside the machine verdict (which never changes); each one is on the timeline. */
export function ReviewPanel(props: { verification: Verification; onChange: (v: Verification) => void }) {
  const v = props.verification;
  const who = useWho();
  const [decision, setDecision] = useState<Decision | undefined>(undefined);
  const [note, setNote, clearNote] = useDraft(`review-note:${v.id}`);
  const latest = useRef<HTMLDivElement>(null);
  const submit = useAction(async () => {
    // Decided beside the review on screen: if a colleague recorded another since, the service refuses
    // (409) and the latest one is shown for the operator to read before deciding again.
    const body = { decision: decision!, note: note.trim(), replaces: v.review?.at ?? null };
    const next = await ok(api.POST("/v1/verifications/{id}/review", { params: { path: { id: v.id } }, body })).catch(async (error: unknown) => {
      if (error instanceof ApiError && error.status === 409) {
        const latest = await api.GET("/v1/verifications/{id}", { params: { path: { id: v.id } } });
        if (latest.data) props.onChange(latest.data);
      }
      throw error;
    });
    props.onChange(next);
    setDecision(undefined);
    clearNote();
    announce("Review recorded");
    focusSoon(latest);
  });
  return (
    <div class="stack">
      <div ref={latest} tabIndex={-1}>
        {v.review ? (
          <Notice>
            Latest review: <ReviewBadge review={v.review} /> {v.review.note ? <>“<bdi>{v.review.note}</bdi>”</> : null}{" "}
            <span class="meta">
              by <bdi>{who(v.review.by)}</bdi>, {formatDateTime(v.review.at)}
            </span>
          </Notice>
        ) : null}
      </div>
      {v.redacted_at ? (
        <p class="muted">A redacted verification takes no further review.</p>
      ) : (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void submit.run();
          }}
        >
          <fieldset class="decisions">
            <legend>Decision</legend>
            {DECISIONS.map(([value, label, hint]) => {
              // Nothing to approve before the evidence is judged (the service refuses it too).
              const unjudged = value === "approved" && !v.verdict;
              return (
                <span class="check" key={value}>
                  <input type="radio" id={`decision-${value}`} name="decision" value={value} checked={decision === value} disabled={unjudged} onChange={() => setDecision(value)} />
                  <label for={`decision-${value}`}>
                    {label} <span class="meta">{unjudged ? "Once there is a verdict: nothing was judged yet." : hint}</span>
                  </label>
                </span>
              );
            })}
            {submit.error?.fields.decision ? <p class="field-error">{submit.error.fields.decision}</p> : null}
          </fieldset>
          <Field label="Note (required)" hint="Why (kept on the timeline with your name; up to 2000 characters)." error={submit.error?.fields.note}>
            {(c) => <textarea {...c} required maxLength={2000} rows={3} value={note} onInput={(e) => setNote(e.currentTarget.value)} />}
          </Field>
          {submit.error && Object.keys(submit.error.fields).length === 0 ? <ErrorNotice error={submit.error} what="The review was not recorded" /> : null}
          <div>
            <button type="submit" class="button primary" disabled={submit.busy || !decision || note.trim() === ""}>
              {submit.busy ? "Recording…" : "Record the review"}
            </button>
          </div>
          {submit.busy ? <Progress label="Recording the review…" /> : null}
        </form>
      )}
    </div>
  );
}
