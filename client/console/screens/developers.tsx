import { useState } from "preact/hooks";
import { api, ok, type ApiKey, type Schemas, type WebhookDelivery } from "../api";
import { ListTable } from "../components/list-table";
import { announce, Badge, ConfirmDialog, CopyButton, ErrorNotice, Field, LoadState, Notice, PageHeader, Progress, Section } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { useAction, useLoad, useTitle } from "../lib/hooks";
import { useCan } from "../lib/roles";
import { DeliveryTable } from "./detail/deliveries";

export function DevelopersScreen() {
  useTitle("Developers");
  const can = useCan();
  return (
    <>
      <PageHeader
        title="Developers"
        subtitle={
          <>
            Everything here is also an API call: see the <a href="/docs">API reference</a> and the <a href="/v1/openapi.json">OpenAPI document</a>.
          </>
        }
      />
      <div class="stack">
        {can("admin") ? (
          <>
            <ApiKeys />
            <WebhookSecret />
            <TestEvent />
          </>
        ) : (
          <p class="hint">API keys, the webhook secret and test events are for admins and owners.</p>
        )}
        <RecentDeliveries />
      </div>
    </>
  );
}

function ApiKeys() {
  const keys = useLoad(() => ok(api.GET("/v1/api-keys")), []);
  const [name, setName] = useState("");
  const [scope, setScope] = useState<ApiKey["scope"]>("full");
  const [minted, setMinted] = useState<Schemas["MintedApiKey"] | undefined>(undefined);
  const [revoking, setRevoking] = useState<ApiKey | undefined>(undefined);
  const mint = useAction(async () => {
    const key = await ok(api.POST("/v1/api-keys", { body: { scope, ...(name.trim() ? { name: name.trim() } : {}) } }));
    setMinted(key);
    setName("");
    await keys.reload();
  });
  const revoke = useAction(async (key: ApiKey) => {
    await ok(api.DELETE("/v1/api-keys/{id}", { params: { path: { id: key.id } } }));
    setRevoking(undefined);
    // A revoked key is refused (401): its plaintext is no longer offered for copying.
    setMinted((shown) => (shown?.id === key.id ? undefined : shown));
    announce(`Key ${key.name ?? key.prefix} revoked`);
    await keys.reload();
  });
  const items = keys.data?.items ?? [];
  return (
    <Section title="API keys" id="api-keys">
      <p class="hint">Full keys open the whole tenant API from your back-end. Publishable keys may only create verifications (safe inside an app).</p>
      {minted ? (
        <Notice tone="success">
          <p>
            <strong>Copy the new key now: it is shown only this once.</strong> Only its hash is stored.
          </p>
          <div class="inline">
            <label class="visually-hidden" for="minted-key">
              New API key
            </label>
            <input id="minted-key" class="mono" readOnly value={minted.key} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={minted.key} label="Copy key" />
            <button type="button" class="button secondary small" onClick={() => setMinted(undefined)}>
              Done
            </button>
          </div>
        </Notice>
      ) : null}
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void mint.run();
        }}
      >
        <Field label="Name" hint="Where it is used, e.g. Production back-end." error={mint.error?.fields.name}>
          {(c) => <input {...c} maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <Field label="Scope" error={mint.error?.fields.scope}>
          {(c) => (
            <select {...c} value={scope} onChange={(e) => setScope(e.currentTarget.value as ApiKey["scope"])}>
              <option value="full">Full</option>
              <option value="publishable">Publishable</option>
            </select>
          )}
        </Field>
        <button type="submit" class="button primary" disabled={mint.busy}>
          {mint.busy ? "Creating…" : "Create key"}
        </button>
      </form>
      {mint.error && Object.keys(mint.error.fields).length === 0 ? <ErrorNotice error={mint.error} /> : null}
      <LoadState of={keys} failed="Keys could not be loaded" loading="Loading keys…" empty={items.length === 0 && "No keys yet."} />
      {items.length > 0 ? (
        <ListTable
          caption="API keys"
          rows={items}
          rowKey={(k) => k.id}
          columns={[
            {
              label: "Key",
              cell: (k) => (
                <>
                  <bdi class="break">
                    <strong>{k.name ?? "Unnamed key"}</strong>
                  </bdi> <span class="mono">{k.prefix}</span>
                </>
              ),
            },
            {
              label: "Scope",
              cell: (k) => (
                <>
                  {k.scope} {k.revoked_at ? <Badge tone="neutral">revoked {formatDateTime(k.revoked_at)}</Badge> : null}
                </>
              ),
            },
            { label: "Created", cell: (k) => formatDateTime(k.created_at) },
            { label: "Last used", cell: (k) => formatDateTime(k.last_used_at) },
            {
              label: "Actions",
              hideLabel: true,
              cell: (k) =>
                k.revoked_at ? null : (
                  <button type="button" class="button danger-link small" onClick={() => setRevoking(k)}>
                    Revoke <span class="visually-hidden">{k.name ?? k.prefix}</span>
                  </button>
                ),
            },
          ]}
        />
      ) : null}
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke ${revoking?.name ?? revoking?.prefix ?? "this key"}?`}
        body={<p>Every request with this key is refused from now on (401). This cannot be undone; create a new key to replace it.</p>}
        confirm="Revoke the key"
        busy={revoke.busy}
        error={revoke.error}
        onConfirm={() => revoking && void revoke.run(revoking)}
        onClose={() => {
          setRevoking(undefined);
          revoke.clearError();
        }}
      />
    </Section>
  );
}

/**
 * The signing secret is fetched only when an operator presses Reveal (each reveal is on the audit
 * log as `webhook_secret.revealed`); a rotation shows the new one.
 */
function WebhookSecret() {
  const [secret, setSecret] = useState<Schemas["WebhookSecret"] | undefined>(undefined);
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const reveal = useAction(async () => {
    setSecret(await ok(api.GET("/v1/webhook-secret")));
    setShown(true);
  });
  const rotate = useAction(async () => {
    setSecret(await ok(api.POST("/v1/webhook-secret/rotate")));
    setConfirming(false);
    setShown(true);
    announce("Webhook secret rotated");
  });
  return (
    <Section title="Webhook signing secret" id="webhook-secret">
      <p class="hint">
        Every webhook is signed with it (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). Verify with any Standard Webhooks
        library. Revealing it is recorded in the audit log.
      </p>
      <ErrorNotice error={reveal.error} what="The secret could not be revealed" />
      <div class="stack">
        <div class="inline">
          {secret && shown ? (
            <>
              <label class="visually-hidden" for="webhook-secret-value">
                Webhook secret
              </label>
              <input id="webhook-secret-value" class="mono secret" readOnly type="text" value={secret.secret} />
              <button type="button" class="button secondary small" onClick={() => setShown(false)}>
                Hide
              </button>
              <CopyButton text={secret.secret} label="Copy secret" />
            </>
          ) : (
            <>
              <span class="mono secret" aria-label="Webhook secret, hidden">
                whsec_••••••••••••••••
              </span>
              <button type="button" class="button secondary small" disabled={reveal.busy} onClick={() => void reveal.run()}>
                {reveal.busy ? "Revealing…" : "Reveal"}
              </button>
            </>
          )}
        </div>
        {secret?.previous_secret_expires_at ? (
          <Notice tone="info">The secret you rotated out also signs every delivery until {formatDateTime(secret.previous_secret_expires_at)} (each one rotated out signs for 24 hours): switch your receiver before then.</Notice>
        ) : null}
        <div>
          <button type="button" class="button secondary" onClick={() => setConfirming(true)}>
            Rotate the secret
          </button>
        </div>
      </div>
      <ConfirmDialog
        open={confirming}
        tone="primary"
        title="Rotate the webhook secret?"
        body={
          <p>
            A new secret signs every webhook from now on. For 24 hours the current one signs too (each delivery carries both signatures), so your receiver keeps verifying while
            you switch it to the new secret. Rotating again within the 24 hours retires the older secret at once.
          </p>
        }
        confirm="Rotate"
        busy={rotate.busy}
        error={rotate.error}
        onConfirm={() => void rotate.run()}
        onClose={() => setConfirming(false)}
      />
    </Section>
  );
}

function TestEvent() {
  const [url, setUrl] = useState("");
  const send = useAction(async () => ok(api.POST("/v1/webhook-test", { body: { url: url.trim() } })));
  const [result, setResult] = useState<Schemas["WebhookTestResult"] | undefined>(undefined);
  return (
    <Section title="Send a test event" id="test-event">
      <form
        class="inline-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setResult(await send.run());
        }}
      >
        <Field label="Receiver URL" class="grow" hint="A signed webhook.test event is sent once, now; nothing is retried or stored." error={send.error?.fields.url}>
          {(c) => <input {...c} type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/hooks/verification" />}
        </Field>
        <button type="submit" class="button primary" disabled={send.busy || url.trim() === ""}>
          {send.busy ? "Sending…" : "Send test event"}
        </button>
      </form>
      {send.busy ? <Progress label="Waiting for the receiver (up to 10 s)…" /> : null}
      {send.error && !send.error.fields.url ? <ErrorNotice error={send.error} what="Not sent" /> : null}
      {result ? (
        result.delivered ? (
          <Notice tone="success">
            Delivered: the receiver answered HTTP {result.status_code} in {result.latency_ms} ms (event <span class="mono">{result.event.id}</span>).
          </Notice>
        ) : (
          <Notice tone="error">
            Not acknowledged: {result.error ?? (result.status_code ? `HTTP ${result.status_code}` : "no answer")} after {result.latency_ms} ms. Any 2xx
            within 10 s acknowledges an event.
          </Notice>
        )
      ) : null}
    </Section>
  );
}

function RecentDeliveries() {
  const can = useCan();
  const [status, setStatus] = useState<"" | WebhookDelivery["status"]>("");
  const [items, setItems] = useState<WebhookDelivery[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const first = useLoad(async () => {
    const page = await ok(api.GET("/v1/webhook-deliveries", { params: { query: { limit: 20, ...(status ? { status } : {}) } } }));
    setItems(page.items);
    setCursor(page.next_cursor);
    return page;
  }, [status]);
  const more = useAction(async () => {
    const page = await ok(api.GET("/v1/webhook-deliveries", { params: { query: { limit: 20, cursor, ...(status ? { status } : {}) } } }));
    setItems((current) => [...current, ...page.items]);
    setCursor(page.next_cursor);
  });
  return (
    <Section
      title="Recent deliveries"
      id="recent-deliveries"
      actions={
        <span class="inline">
          <label for="delivery-status">Status</label>
          <select id="delivery-status" value={status} onChange={(e) => setStatus(e.currentTarget.value as typeof status)}>
            <option value="">Any</option>
            <option value="failed">Failed</option>
            <option value="pending">Pending</option>
            <option value="succeeded">Succeeded</option>
          </select>
          <button type="button" class="button secondary small" onClick={() => void first.reload()}>
            Refresh
          </button>
        </span>
      }
    >
      <LoadState of={first} failed="Deliveries could not be loaded" loading="Loading deliveries…" />
      {first.data ? <DeliveryTable deliveries={items} showVerification canRetry={can("admin")} onChanged={(d) => setItems(items.map((x) => (x.id === d.id ? d : x)))} /> : null}
      <ErrorNotice error={more.error} />
      {cursor ? (
        <button type="button" class="button secondary" disabled={more.busy} onClick={() => void more.run()}>
          {more.busy ? "Loading…" : "Load more"}
        </button>
      ) : null}
    </Section>
  );
}
