/** `2026-12-01 21:30 UTC`: the service stores and buckets in UTC, so the console shows UTC. */
export function utcTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function percent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}

export function yesNo(value: boolean | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return value ? 'yes' : 'no';
}

/** `1,234 events`, or `10,000+ events` when the service stopped counting at its cap. */
export function countText(count: number, exact: boolean, noun: string): string {
  return `${count.toLocaleString('en-US')}${exact ? '' : '+'} ${noun}${count === 1 && exact ? '' : 's'}`;
}
