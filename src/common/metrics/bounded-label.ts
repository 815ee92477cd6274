/**
 * Keeps a metric label's cardinality bounded: the first `limit` distinct values pass, later
 * new ones are reported as `other` (R-TR-8). Values are cut to a fixed length.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(
    private readonly limit: number,
    private readonly maxLength = 128,
  ) {}

  value(raw: string): string {
    const value = raw.slice(0, this.maxLength);
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.limit) return 'other';
    this.seen.add(value);
    return value;
  }
}
