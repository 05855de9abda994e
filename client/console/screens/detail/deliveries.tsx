import { useState } from "preact/hooks";
import { api, ok, type WebhookDelivery } from "../../api";
import { ListTable } from "../../components/list-table";
import { announce, Badge, Empty, ErrorNotice } from "../../components/ui";
import { formatDateTime } from "../../lib/format";
import { useAction } from "../../lib/hooks";

const TONE = { pending: "info", succeeded: "good", failed: "bad" } as const;

/** Webhook deliveries with their attempts; a finished one can be sent again (same id and body). */
export function DeliveryTable(props: { deliveries: WebhookDelivery[]; showVerification?: boolean; canRetry: boolean; onChanged: (d: WebhookDelivery) => void }) {
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
      <ListTable
        caption="Webhook deliveries"
        rows={props.deliveries}
        rowKey={(d) => d.id}
        columns={[
          {
            label: "Event",
            cell: (d) => (
              <>
                <span class="mono">{d.event_type}</span>
                <span class="meta">{formatDateTime(d.created_at)}</span>
                <span class="meta break">{d.url}</span>
              </>
            ),
          },
          props.showVerification === true && {
            label: "Verification",
            cell: (d) => (
              <a class="mono" href={`/console/verifications/${d.verification_id}`}>
                {d.verification_id}
              </a>
            ),
          },
          {
            label: "Status",
            cell: (d) => (
              <>
                <Badge tone={TONE[d.status]}>{d.status}</Badge>
                {d.next_attempt_at ? <span class="meta">next try {formatDateTime(d.next_attempt_at)}</span> : null}
              </>
            ),
          },
          { label: "Attempts", cell: (d) => d.attempt_count },
          { label: "Last answer", cell: (d) => (d.last_status_code ? `HTTP ${d.last_status_code}` : (d.last_error ?? "—")) },
          props.canRetry && {
            label: "Actions",
            hideLabel: true,
            cell: (d) =>
              d.status !== "pending" ? (
                <button type="button" class="button secondary small" disabled={retrying === d.id} onClick={() => void retry.run(d.id)} aria-label={`${d.status === "failed" ? "Retry" : "Send again"} ${d.event_type} delivery`}>
                  {retrying === d.id ? "Queuing…" : d.status === "failed" ? "Retry" : "Send again"}
                </button>
              ) : null,
          },
        ]}
      />
    </>
  );
}
