import { useState } from "preact/hooks";
import { api, ok, type WebhookDelivery } from "../../api";
import { announce, Badge, Empty, ErrorNotice } from "../../components/ui";
import { formatDateTime } from "../../lib/format";
import { useAction } from "../../lib/hooks";

const TONE = { pending: "info", succeeded: "good", failed: "bad" } as const;

/** Webhook deliveries with their attempts; a finished one can be sent again (same id and body). */
export function DeliveryTable(props: { deliveries: WebhookDelivery[]; showVerification?: boolean; onChanged: (d: WebhookDelivery) => void }) {
  const [retrying, setRetrying] = useState<string | undefined>(undefined);
  const retry = useAction(async (id: string) => {
    setRetrying(id);
    try {
      const d = await ok(api.POST("/v1/webhook-deliveries/{id}/retry", { params: { path: { id } } }));
      props.onChanged(d);
      announce("Delivery queued again");
    } finally {
      setRetrying(undefined);
    }
  });
  if (props.deliveries.length === 0) return <Empty>No webhook deliveries.</Empty>;
  return (
    <>
      <ErrorNotice error={retry.error} what="The delivery could not be retried" />
      <div class="table-wrap">
        <table class="list responsive">
          <thead>
            <tr>
              <th scope="col">Event</th>
              {props.showVerification ? <th scope="col">Verification</th> : null}
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.deliveries.map((d) => (
              <tr key={d.id}>
                <td data-label="Event">
                  <span class="mono">{d.event_type}</span>
                  <span class="meta">{formatDateTime(d.created_at)}</span>
                  <span class="meta break">{d.url}</span>
                </td>
                {props.showVerification ? (
                  <td data-label="Verification">
                    <a class="mono" href={`/console/verifications/${d.verification_id}`}>
                      {d.verification_id}
                    </a>
                  </td>
                ) : null}
                <td data-label="Status">
                  <Badge tone={TONE[d.status]}>{d.status}</Badge>
                  {d.next_attempt_at ? <span class="meta">next try {formatDateTime(d.next_attempt_at)}</span> : null}
                </td>
                <td data-label="Attempts">{d.attempt_count}</td>
                <td data-label="Last answer">{d.last_status_code ? `HTTP ${d.last_status_code}` : (d.last_error ?? "—")}</td>
                <td data-label="Actions">
                  {d.status !== "pending" ? (
                    <button type="button" class="button secondary small" disabled={retrying === d.id} onClick={() => void retry.run(d.id)} aria-label={`${d.status === "failed" ? "Retry" : "Send again"} ${d.event_type} delivery`}>
                      {retrying === d.id ? "Queuing…" : d.status === "failed" ? "Retry" : "Send again"}
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
