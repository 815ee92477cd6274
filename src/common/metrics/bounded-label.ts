export interface BoundedLabelOptions {
  /** New values one owner (a team) may admit; unset: only the overall limit applies. */
  readonly perOwner?: number;
  /** Values are cut to this many characters. */
  readonly maxLength?: number;
}

/**
 * Keeps a metric label's cardinality bounded: the first `limit` distinct values pass, later
 * new ones are reported as `other` (R-TR-8). Values are cut to a fixed length.
 *
 * With `perOwner`, each owner (a team) may admit at most that many new values: a value already
 * admitted passes for everyone, but one tenant can no longer use up the whole budget.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();
  /** How many values each owner admitted; at most `limit` entries, since each admitted one. */
  private readonly admittedBy = new Map<string, number>();
  private readonly perOwner: number;
  private readonly maxLength: number;

  constructor(
    private readonly limit: number,
    options: BoundedLabelOptions = {},
  ) {
    this.perOwner = options.perOwner ?? Number.POSITIVE_INFINITY;
    this.maxLength = options.maxLength ?? 128;
  }

  value(raw: string, owner?: string): string {
    const value = raw.slice(0, this.maxLength);
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.limit) return 'other';
    if (owner !== undefined) {
      const admitted = this.admittedBy.get(owner) ?? 0;
      if (admitted >= this.perOwner) return 'other';
      this.admittedBy.set(owner, admitted + 1);
    }
    this.seen.add(value);
    return value;
  }
}
