import type { ComponentChildren } from "preact";

export interface Column<T> {
  /** The column's header, and each cell's label when the table stacks into cards on a phone. */
  label: string;
  /** Heard by screen readers but not shown (the actions column). */
  hideLabel?: boolean;
  cell: (row: T) => ComponentChildren;
}

/**
 * The console's list table. Each column names its header once, and that name is also its cells'
 * `data-label` (what styles.css shows before each cell when the table stacks), so the two cannot
 * drift apart. A column given as `false` is left out (e.g. a column only one screen needs).
 */
export function ListTable<T>(props: { caption: string; columns: ReadonlyArray<Column<T> | false>; rows: readonly T[]; rowKey: (row: T) => string; busy?: boolean }) {
  const columns = props.columns.filter((c): c is Column<T> => c !== false);
  return (
    <div class="table-wrap">
      <table class="list responsive">
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c.label}>
                {c.hideLabel ? <span class="visually-hidden">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody aria-busy={props.busy}>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {columns.map((c) => (
                <td data-label={c.label} key={c.label}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
