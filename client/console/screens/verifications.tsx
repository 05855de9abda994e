import { useEffect, useRef, useState } from "preact/hooks";
import { refreshed } from "../lib/list-refresh";
import { api, isOpen, ok, type ListQuery, type Verification } from "../api";
import { ReviewBadge, StatusBadge, VerdictBadge } from "../components/badges";
import { ListTable, type Column } from "../components/list-table";
import { ErrorNotice, LoadState, Notice, PageHeader, Progress } from "../components/ui";
import { formatDateTime, formatTime, relative } from "../lib/format";
import { useAction, useLoad, usePolling, useTitle } from "../lib/hooks";
import { useCan } from "../lib/roles";
import { navigate, useLocation } from "../router";

const PAGE = 25;
/** Refresh cadence: quick while something on screen can still change by itself, slow otherwise. */
const OPEN_REFRESH_MS = 4_000;
const IDLE_REFRESH_MS = 30_000;

type Filters = Pick<ListQuery, "status" | "verdict" | "assessed" | "template_id" | "has_review" | "q" | "created_gte" | "created_lt">;
const FILTER_KEYS = ["status", "verdict", "template_id", "has_review", "q", "from", "to"] as const;

/** The API's limit on `q`. */
const SEARCH_MAX = 200;

/** A `YYYY-MM-DD` as the start of that local day; null when it names no day (2026-13-45, 2026-02-30). */
function localDay(value: string): Date | null {
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!parts) return null;
  const [year, month, date] = [Number(parts[1]), Number(parts[2]) - 1, Number(parts[3])];
  const day = new Date(year, month, date);
  return day.getFullYear() === year && day.getMonth() === month && day.getDate() === date ? day : null;
}

/**
 * The URL's query → the API's filters (dates are whole local days). A filter that cannot be applied
 * (the URL is edited by hand, bookmarked or pasted) is named in `problems`, and then nothing is listed:
 * rows that ignore a filter would read as its matches.
 */
function filtersFrom(query: URLSearchParams): { filters: Filters; problems: string[] } {
  const f: Filters = {};
  const problems: string[] = [];
  const status = query.get("status");
  if (status) f.status = status as Filters["status"];
  // The choices are the badges: a label that evaluated nothing is shown "Not assessed", not under its label.
  const verdict = query.get("verdict");
  if (verdict === "not_assessed") f.assessed = "false";
  else if (verdict) {
    f.verdict = verdict as Filters["verdict"];
    f.assessed = "true";
  }
  const template = query.get("template_id");
  if (template) f.template_id = template;
  const reviewed = query.get("has_review");
  if (reviewed === "true" || reviewed === "false") f.has_review = reviewed;
  const q = query.get("q")?.trim();
  if (q && q.length > SEARCH_MAX) problems.push(`A search is at most ${SEARCH_MAX} characters; this one has ${q.length}.`);
  else if (q) f.q = q;
  const from = query.get("from");
  const start = from ? localDay(from) : null;
  if (start) f.created_gte = start.toISOString();
  else if (from) problems.push(`“Created from” is not a date: ${from}.`);
  const to = query.get("to");
  const end = to ? localDay(to) : null;
  if (end) {
    end.setDate(end.getDate() + 1);
    f.created_lt = end.toISOString();
  } else if (to) problems.push(`“Created to” is not a date: ${to}.`);
  // Both dates, the wrong way round: said as such, not listed as "no verification matches".
  if (start && end && start >= end) problems.push(`“Created from” (${from}) is after “Created to” (${to}).`);
  return { filters: f, problems };
}

export function VerificationsScreen() {
  useTitle("Verifications");
  const can = useCan();
  const location = useLocation();
  const { filters, problems } = filtersFrom(location.query);
  const key = JSON.stringify([filters, problems]);
  const [rows, setRows] = useState<Verification[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [refreshedAt, setRefreshedAt] = useState<Date | undefined>(undefined);
  // Which list the rows on screen are: the filters they were read for, and how many times a first
  // page or "Load more" changed them. An answer for another list, or one that set off before a page
  // landed, is dropped rather than mixed in (settings probe of 2026-12-04: a refresh overlapping
  // "Load more" listed 25 rows twice; a page still in flight as a filter changed showed its rows
  // under the new filter).
  const listed = useRef({ key, pages: 0 });
  listed.current.key = key;
  // The template filter's names are not needed to show the list: they load once the list is on
  // screen (or at once when the URL already filters by a template).
  const [wantTemplates, setWantTemplates] = useState(location.query.has("template_id"));
  const templates = useLoad(async () => (wantTemplates ? ok(api.GET("/v1/link-templates")) : undefined), [wantTemplates]);

  // The newest first-page load is the only one whose rows are shown: an older one answering late
  // (a slow search replaced by another) would list its rows under the newer filters.
  const loads = useRef(0);
  const first = useLoad(async () => {
    const mine = ++loads.current;
    if (problems.length > 0) {
      setRows([]);
      setCursor(undefined);
      return null;
    }
    const page = await ok(api.GET("/v1/verifications", { params: { query: { ...filters, limit: PAGE } } }));
    if (mine !== loads.current) return page;
    listed.current.pages += 1;
    setRows(page.items);
    setCursor(page.next_cursor);
    setRefreshedAt(new Date());
    setWantTemplates(true);
    return page;
  }, [key]);

  const more = useAction(async () => {
    if (!cursor) return;
    const asked = key;
    const page = await ok(api.GET("/v1/verifications", { params: { query: { ...filters, limit: PAGE, cursor } } }));
    if (listed.current.key !== asked) return;
    listed.current.pages += 1;
    setRows((current) => [...current, ...page.items]);
    setCursor(page.next_cursor);
  });

  // Live refresh: the rows on screen are read again from the top (one request), so open rows move
  // on as their captures and verdicts arrive, and new verifications appear first.
  const anyOpen = rows.some(isOpen);
  usePolling(
    async () => {
      const limit = Math.min(Math.max(rows.length, PAGE), 100);
      const asked = { ...listed.current };
      try {
        const page = await ok(api.GET("/v1/verifications", { params: { query: { ...filters, limit } } }));
        if (listed.current.key !== asked.key || listed.current.pages !== asked.pages) return;
        const next = refreshed(rows, page.items, limit);
        setRows(next);
        // The cursor moves only when the refresh covered every row loaded (else the loaded tail's still holds).
        if (next.length === page.items.length) setCursor(page.next_cursor);
        setRefreshedAt(new Date());
      } catch {
        // A failed refresh keeps what is on screen; the next tick tries again.
      }
    },
    anyOpen ? OPEN_REFRESH_MS : IDLE_REFRESH_MS,
    first.data !== undefined && first.data !== null,
  );

  const setFilter = (name: (typeof FILTER_KEYS)[number], value: string) => {
    const next = new URLSearchParams(location.query);
    if (value) next.set(name, value);
    else next.delete(name);
    const query = next.toString();
    navigate(`/console/verifications${query ? `?${query}` : ""}`, { replace: true });
  };
  const [search, setSearch] = useState(location.query.get("q") ?? "");
  useEffect(() => setSearch(location.query.get("q") ?? ""), [location.query.get("q")]);
  const filtered = FILTER_KEYS.some((k) => location.query.get(k));

  return (
    <>
      <PageHeader
        title="Verifications"
        subtitle={refreshedAt ? <span aria-live="off">Live: updated {formatTime(refreshedAt)}</span> : null}
        actions={
          can("reviewer") ? (
            <a class="button primary" href="/console/verifications/new">
              New verification
            </a>
          ) : null
        }
      />
      <form
        class="filters"
        role="search"
        aria-label="Filter verifications"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter("q", search.trim());
        }}
      >
        <div class="field grow">
          <label for="f-q">Search</label>
          <div class="inline">
            <input id="f-q" type="search" placeholder="An id, or a metadata value" title="A verification or capture id, or a metadata value such as a claim number" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
            <button type="submit" class="button secondary">
              Search
            </button>
          </div>
        </div>
        <div class="field">
          <label for="f-status">Status</label>
          <select id="f-status" value={location.query.get("status") ?? ""} onChange={(e) => setFilter("status", e.currentTarget.value)}>
            <option value="">Any</option>
            <option value="pending">Waiting for capture</option>
            <option value="partially_captured">Capturing</option>
            <option value="completed">Completed</option>
            <option value="abandoned">Abandoned</option>
            <option value="expired">Expired</option>
            <option value="failed">Failed</option>
          </select>
        </div>
        <div class="field">
          <label for="f-verdict">Verdict</label>
          <select id="f-verdict" value={location.query.get("verdict") ?? ""} onChange={(e) => setFilter("verdict", e.currentTarget.value)}>
            <option value="">Any</option>
            <option value="verified">Verified</option>
            <option value="suspicious">Suspicious</option>
            <option value="failed">Failed</option>
            <option value="not_assessed">Not assessed</option>
          </select>
        </div>
        <div class="field">
          <label for="f-template">Template</label>
          <select id="f-template" value={location.query.get("template_id") ?? ""} onChange={(e) => setFilter("template_id", e.currentTarget.value)}>
            <option value="">Any</option>
            {(templates.data?.items ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-review">Review</label>
          <select id="f-review" value={location.query.get("has_review") ?? ""} onChange={(e) => setFilter("has_review", e.currentTarget.value)}>
            <option value="">Any</option>
            <option value="false">Not reviewed</option>
            <option value="true">Reviewed</option>
          </select>
        </div>
        <div class="field">
          <label for="f-from">Created from</label>
          <input id="f-from" type="date" value={location.query.get("from") ?? ""} onChange={(e) => setFilter("from", e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="f-to">Created to</label>
          <input id="f-to" type="date" value={location.query.get("to") ?? ""} onChange={(e) => setFilter("to", e.currentTarget.value)} />
        </div>
        {filtered ? (
          <a class="button link" href="/console/verifications">
            Clear filters
          </a>
        ) : null}
      </form>

      {problems.length > 0 ? (
        <Notice tone="error">
          <strong>These filters cannot be applied, so nothing is listed: </strong>
          {problems.join(" ")}
        </Notice>
      ) : null}
      <LoadState
        of={first}
        failed="The list could not be loaded"
        loading="Loading verifications…"
        empty={rows.length === 0 && (filtered ? "No verification matches these filters." : "No verifications yet. Create one, or start one from a link template.")}
      />
      {/* Filters it cannot apply list nothing from the first render on (the rows of the list before
          are cleared only once the load runs: for a frame they showed under the notice). */}
      {rows.length > 0 && problems.length === 0 ? (
        <ListTable caption="Verifications, newest first" rows={rows} rowKey={(v) => v.id} busy={first.loading} columns={COLUMNS} />
      ) : null}
      <ErrorNotice error={more.error} what="More could not be loaded" />
      {cursor && problems.length === 0 ? (
        <div class="more">
          <button type="button" class="button secondary" disabled={more.busy} onClick={() => void more.run()}>
            {more.busy ? "Loading…" : "Load more"}
          </button>
          {more.busy ? <Progress label="Loading more verifications…" /> : null}
        </div>
      ) : null}
    </>
  );
}

const COLUMNS: ReadonlyArray<Column<Verification>> = [
  {
    label: "Created",
    cell: (v) => (
      <time dateTime={v.created_at} title={formatDateTime(v.created_at)}>
        {relative(v.created_at)}
      </time>
    ),
  },
  { label: "Verification", cell: (v) => <VerificationCell v={v} /> },
  { label: "Status", cell: (v) => <StatusBadge status={v.status} /> },
  { label: "Verdict", cell: (v) => <VerdictBadge verification={v} /> },
  { label: "Captures", cell: (v) => `${v.captures_count} / ${v.config.max_captures}` },
  {
    label: "Review",
    cell: (v) => (
      <>
        <ReviewBadge review={v.review} />
        {v.redacted_at ? <span class="meta">evidence erased</span> : null}
      </>
    ),
  },
];

function VerificationCell(props: { v: Verification }) {
  const { v } = props;
  const metadata = Object.entries(v.config.metadata ?? {}).slice(0, 2);
  return (
    <>
      <a class="row-link mono" href={`/console/verifications/${v.id}`}>
        {v.id}
      </a>
      {metadata.length > 0 ? (
        <span class="meta">
          {metadata.map(([k, value], i) => (
            <span key={k}>
              {i > 0 ? " · " : null}
              <bdi>{k}</bdi>: <bdi>{value}</bdi>
            </span>
          ))}
        </span>
      ) : null}
    </>
  );
}
