/** A logistic regression over the grid-spectrum features, as train.py writes it (.cache/ai-train/grid-model.json). */
export interface LinearModel {
  features: string[];
  mean: number[];
  scale: number[];
  coef: number[];
  intercept: number;
  /** Above every validation photograph's score (every variant) by a margin. */
  threshold: number;
  trained_on?: { train_sources: string[]; val_sources: string[] };
}

/** The model's log-odds that features `values` come from a generator. */
export function pixelScore(values: ArrayLike<number>, model: LinearModel): number {
  let sum = model.intercept;
  for (let i = 0; i < model.coef.length; i += 1) sum += (model.coef[i]! * (values[i]! - model.mean[i]!)) / model.scale[i]!;
  return sum;
}
