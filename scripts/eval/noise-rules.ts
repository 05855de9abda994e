/**
 * The white-noise rule's candidates, swept over presses' noise correlations (near: one pixel away,
 * far: two; scripts/eval/capture-burst.ts and capture-footage/evaluate.ts print them with --sweep):
 * noise reads white when `near` is under `nearBelow`, or when it exceeds `far` by less than
 * `excessBelow` (what sub-pixel motion leaves of a picture is smooth: near about far; a camera's
 * noise is spread to near neighbours more than far ones).
 */
export interface Spread {
  near: number;
  far: number;
}

export const RULES: Array<{ nearBelow: number; excessBelow: number | null }> = [0.1, 0.15, 0.2].flatMap((nearBelow) =>
  [null, 0, 0.03, 0.05, 0.08].map((excessBelow) => ({ nearBelow, excessBelow })),
);

export const isWhite = (s: Spread, rule: (typeof RULES)[number]) => s.near < rule.nearBelow || (rule.excessBelow !== null && s.near - s.far < rule.excessBelow);

export const ruleName = (rule: (typeof RULES)[number]) => `near < ${rule.nearBelow}${rule.excessBelow === null ? "" : ` or near − far < ${rule.excessBelow}`}`;

/** One line per rule: how many of each group's presses read white. */
export function sweepLines(groups: Array<{ name: string; spreads: Spread[] }>): string[] {
  return RULES.map((rule) => `${ruleName(rule).padEnd(32)} ${groups.map((g) => `${g.name} ${g.spreads.filter((s) => isWhite(s, rule)).length}/${g.spreads.length}`).join(", ")}`);
}
