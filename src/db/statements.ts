import { getTableColumns, getTableName, type InferSelectModel } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";

/*
 * The capture path's statements as plain D1 prepared statements. Drizzle builds the SQL of every
 * query anew on each call and decodes batch results through generic row mapping (together ~3 ms of
 * CPU per capture, `npm run bench:profile -- capture`); these build their SQL once per table (or
 * column set) from the same drizzle schema and decode rows with drizzle's own column codecs (JSON
 * and boolean columns), so the schema stays the single description of the tables.
 */

interface Codec {
  key: string;
  name: string;
  column: SQLiteColumn;
}

const codecCache = new WeakMap<SQLiteTable, Codec[]>();

function codecs(table: SQLiteTable): Codec[] {
  let list = codecCache.get(table);
  if (!list) {
    list = Object.entries(getTableColumns(table)).map(([key, column]) => ({ key, name: column.name, column: column as SQLiteColumn }));
    codecCache.set(table, list);
  }
  return list;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function encode(column: SQLiteColumn, value: unknown): unknown {
  return value === null || value === undefined ? null : column.mapToDriverValue(value);
}

/** A table's row from a `SELECT *` result object (keyed by column name), as drizzle would return it. */
export function decodeRow<T extends SQLiteTable>(table: T, raw: Record<string, unknown>): InferSelectModel<T> {
  const row: Record<string, unknown> = {};
  for (const { key, name, column } of codecs(table)) {
    const value = raw[name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as InferSelectModel<T>;
}

export function decodeRows<T extends SQLiteTable>(table: T, result: D1Result): InferSelectModel<T>[] {
  return (result.results as Record<string, unknown>[]).map((raw) => decodeRow(table, raw));
}

const insertSql = new WeakMap<SQLiteTable, string>();

/** `INSERT` of a whole row (every column of the table; absent values are NULL, not the default). */
export function insertRow<T extends SQLiteTable>(d1: D1Database, table: T, row: InferSelectModel<T>): D1PreparedStatement {
  const list = codecs(table);
  let text = insertSql.get(table);
  if (!text) {
    text = `INSERT INTO ${quote(getTableName(table))} (${list.map((c) => quote(c.name)).join(", ")}) VALUES (${list.map(() => "?").join(", ")})`;
    insertSql.set(table, text);
  }
  const values = row as Record<string, unknown>;
  return d1.prepare(text).bind(...list.map((c) => encode(c.column, values[c.key])));
}

const updateSql = new Map<string, string>();

/** `UPDATE … SET <the defined keys of set> WHERE <key column> = ?`. */
export function updateWhere<T extends SQLiteTable>(
  d1: D1Database,
  table: T,
  set: Partial<Record<keyof InferSelectModel<T> & string, unknown>>,
  where: { key: keyof InferSelectModel<T> & string; value: unknown },
): D1PreparedStatement {
  const byKey = new Map(codecs(table).map((c) => [c.key, c]));
  const entries = Object.entries(set).filter(([, value]) => value !== undefined);
  const cacheKey = `${getTableName(table)}|${entries.map(([key]) => key).join(",")}|${where.key}`;
  let text = updateSql.get(cacheKey);
  if (!text) {
    const assignments = entries.map(([key]) => `${quote(byKey.get(key)!.name)} = ?`).join(", ");
    text = `UPDATE ${quote(getTableName(table))} SET ${assignments} WHERE ${quote(byKey.get(where.key)!.name)} = ?`;
    updateSql.set(cacheKey, text);
  }
  const target = byKey.get(where.key)!;
  return d1.prepare(text).bind(...entries.map(([key, value]) => encode(byKey.get(key)!.column, value)), encode(target.column, where.value));
}

/** A drizzle query as a D1 statement, to run in the same batch as the prepared ones. */
export function toStatement(d1: D1Database, item: BatchItem<"sqlite"> | D1PreparedStatement): D1PreparedStatement {
  if ("bind" in item) return item;
  const { sql, params } = (item as unknown as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
  return d1.prepare(sql).bind(...params);
}

const insertWhereSql = new WeakMap<SQLiteTable, string>();

/**
 * `INSERT … SELECT <the row> WHERE <condition>`: the row goes in only if the condition holds when
 * the statement runs, i.e. after the batch's earlier statements (a guard on what they did, or on a
 * state a concurrent batch may have changed first).
 */
export function insertRowWhere<T extends SQLiteTable>(d1: D1Database, table: T, row: InferSelectModel<T>, condition: { sql: string; params: unknown[] }): D1PreparedStatement {
  const list = codecs(table);
  let text = insertWhereSql.get(table);
  if (!text) {
    text = `INSERT INTO ${quote(getTableName(table))} (${list.map((c) => quote(c.name)).join(", ")}) SELECT ${list.map(() => "?").join(", ")}`;
    insertWhereSql.set(table, text);
  }
  const values = row as Record<string, unknown>;
  return d1.prepare(`${text} WHERE ${condition.sql}`).bind(...list.map((c) => encode(c.column, values[c.key])), ...condition.params);
}

/** Drizzle queries and prepared statements run as one D1 batch (one transaction, in order). */
export function mixedBatch(d1: D1Database, items: Array<BatchItem<"sqlite"> | D1PreparedStatement>): Promise<D1Result[]> {
  return d1.batch(items.map((item) => toStatement(d1, item)));
}
