import { useState } from "preact/hooks";
import { api, ApiError, ok, type Schemas, type Verification } from "../../api";
import { announce, Badge, ConfirmDialog, ErrorNotice, Field, Progress } from "../../components/ui";
import { useAction, useDraft, usePolling } from "../../lib/hooks";

type CaseAnalysis = Schemas["CaseAnalysis"];
const PRIORITY_TONE = { low: "good", medium: "warn", high: "bad" } as const;

/** A redaction erases the narrative and the case analysis; the timeline still says whether there were any. */
function erasedWords(finalized: boolean | undefined): string {
  if (finalized === undefined) return "The evidence was erased.";
  return finalized
    ? "It was finalized; the redaction erased the narrative and the case analysis with the evidence."
    : "The evidence was erased before the case was finalized: it can no longer be.";
}

/**
 * Finalize: the claimant's narrative goes to the case analysis. When it does not finish inside the
 * request, the panel keeps reading the verification until `case_analysis` arrives.
 */
export function FinalizePanel(props: { verification: Verification; canFinalize: boolean; finalizedOnTimeline?: boolean; onChange: (v: Verification) => void }) {
  const v = props.verification;
  const [narrative, setNarrative, clearNarrative] = useDraft(`narrative:${v.id}`);
  const [confirming, setConfirming] = useState(false);
  const finalize = useAction(async () => {
    try {
      props.onChange(await ok(api.POST("/v1/verifications/{id}/finalize", { params: { path: { id: v.id } }, body: { narrative: narrative.trim() } })));
      clearNarrative();
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "already_finalized")) throw err;
      // Finalized meanwhile (another tab, another member): show the case as the service has it.
      props.onChange(await ok(api.GET("/v1/verifications/{id}", { params: { path: { id: v.id } } })));
      announce("This case was already finalized elsewhere: its narrative is shown.");
      clearNarrative();
    }
    setConfirming(false);
  });
  const waiting = v.narrative !== undefined && v.case_analysis === undefined;
  usePolling(
    async () => {
      try {
        props.onChange(await ok(api.GET("/v1/verifications/{id}", { params: { path: { id: v.id } } })));
      } catch {
        // the next tick tries again
      }
    },
    2_000,
    waiting,
  );

  if (v.narrative !== undefined) {
    return (
      <div class="stack">
        <blockquote class="narrative" dir="auto">
          {v.narrative}
        </blockquote>
        {v.case_analysis ? <CaseAnalysisView analysis={v.case_analysis} /> : <Progress label="Waiting for the case analysis… it appears here when it arrives." />}
      </div>
    );
  }
  if (v.redacted_at) return <p class="muted">{erasedWords(props.finalizedOnTimeline)}</p>;
  if (!props.canFinalize) return <p class="muted">Not finalized yet.</p>;
  const closed = v.status === "expired" || v.status === "failed" || v.captures_count === 0;
  if (closed) return <p class="muted">Finalize needs at least one capture and a verification that has not expired or failed.</p>;
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        setConfirming(true);
      }}
    >
      {/* Finalizing happens once: the narrative cannot be edited or the analysis run again. */}
      <ConfirmDialog
        open={confirming}
        title="Finalize this case?"
        body="The narrative is recorded once and cannot be changed, and the case analysis runs on it. A verification is finalized only once."
        confirm="Finalize"
        tone="primary"
        busy={finalize.busy}
        error={finalize.error}
        onConfirm={() => void finalize.run()}
        onClose={() => setConfirming(false)}
      />
      <Field label="Narrative" hint="The claimant's own account (up to 2000 characters): the case analysis checks the photos against it. Once only." error={finalize.error?.fields.narrative}>
        {(c) => <textarea {...c} required maxLength={2000} rows={4} value={narrative} onInput={(e) => setNarrative(e.currentTarget.value)} />}
      </Field>
      {finalize.error && !finalize.error.fields.narrative ? <ErrorNotice error={finalize.error} what="Finalize failed" /> : null}
      <div>
        <button type="submit" class="button primary" disabled={finalize.busy || narrative.trim() === ""}>
          {finalize.busy ? "Finalizing…" : "Finalize and analyse the case"}
        </button>
      </div>
      {finalize.busy ? <Progress label="Running the case analysis…" /> : null}
    </form>
  );
}

const DIMENSIONS: Array<[keyof CaseAnalysis["dimensions"], string]> = [
  // Named as what is measured, not as a finding: beside "risk 75 / 100", "Physically plausible" read as a pass.
  ["narrative_image_match", "Narrative against the photos"],
  ["cross_image_consistency", "Consistency between photos"],
  ["physical_plausibility", "Physical plausibility"],
];

export function CaseAnalysisView(props: { analysis: CaseAnalysis }) {
  const a = props.analysis;
  return (
    <div class="stack case-analysis">
      <dl class="facts">
        <dt>Overall risk</dt>
        <dd>
          <meter min={0} max={1} low={0.34} high={0.66} optimum={0} value={a.overall_risk_score} aria-label="Overall risk score" /> {Math.round(a.overall_risk_score * 100)} / 100
        </dd>
        <dt>Review priority</dt>
        <dd>
          <Badge tone={PRIORITY_TONE[a.review_priority]}>{a.review_priority}</Badge>
        </dd>
        <dt>Confidence</dt>
        <dd>{Math.round(a.confidence * 100)} %</dd>
        <dt>Model</dt>
        <dd class="mono">{a.model}</dd>
      </dl>
      <ul class="dimensions">
        {DIMENSIONS.map(([key, label]) => {
          const d = a.dimensions[key];
          if (!d) return null;
          return (
            <li key={key}>
              <strong>{label}</strong>: risk {Math.round(d.score * 100)} / 100. {d.evidence}
              {d.concerns && d.concerns.length > 0 ? (
                <ul>
                  {d.concerns.map((c) => (
                    <li key={c}>{c}</li>
                  ))}
                </ul>
              ) : null}
            </li>
          );
        })}
      </ul>
      {a.uncertainty_areas.length > 0 ? (
        <>
          <h3>What the analysis could not settle</h3>
          <ul>
            {a.uncertainty_areas.map((u) => (
              <li key={u}>{u}</li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
